package io.rubix.core.read.session;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.metadata.CacheUsage;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/** A metadata service that counts the {@code status} and {@code acquire} calls it passes on to another one. */
public final class CountingMetadataService implements CacheMetadataService {
  public final AtomicInteger statusCalls = new AtomicInteger();
  public final AtomicInteger acquireCalls = new AtomicInteger();
  private final CacheMetadataService delegate;

  public CountingMetadataService(CacheMetadataService delegate) {
    this.delegate = requireNonNull(delegate, "delegate is null");
  }

  @Override
  public int blockSize() {
    return delegate.blockSize();
  }

  @Override
  public BlockRange status(ObjectVersion version, int firstBlock, int endBlock) throws IOException {
    statusCalls.incrementAndGet();
    return delegate.status(version, firstBlock, endBlock);
  }

  @Override
  public BlockRange status(ObjectVersion version, int firstBlock, int endBlock, int readBlock) throws IOException {
    statusCalls.incrementAndGet();
    return delegate.status(version, firstBlock, endBlock, readBlock);
  }

  @Override
  public void reportReads(ObjectVersion version, int[] blocks) throws IOException {
    delegate.reportReads(version, blocks);
  }

  @Override
  public BlockRange acquire(ObjectVersion version, int firstBlock, int endBlock) throws IOException {
    acquireCalls.incrementAndGet();
    return delegate.acquire(version, firstBlock, endBlock);
  }

  @Override
  public int commit(long leaseId, int[] blocks, int[] crc32c) throws IOException {
    return delegate.commit(leaseId, blocks, crc32c);
  }

  @Override
  public void abort(long leaseId, int[] blocks, boolean written) throws IOException {
    delegate.abort(leaseId, blocks, written);
  }

  @Override
  public BlockRange awaitInFlight(ObjectVersion version, int firstBlock, int endBlock, long timeoutMillis)
      throws IOException, InterruptedException {
    return delegate.awaitInFlight(version, firstBlock, endBlock, timeoutMillis);
  }

  @Override
  public void reportCorrupt(ObjectVersion version, int block) throws IOException {
    delegate.reportCorrupt(version, block);
  }

  @Override
  public void invalidate(ObjectVersion version) throws IOException {
    delegate.invalidate(version);
  }

  @Override
  public int invalidatePath(String path) throws IOException {
    return delegate.invalidatePath(path);
  }

  @Override
  public long immutableLength(String path) throws IOException {
    return delegate.immutableLength(path);
  }

  @Override
  public CacheUsage usage() throws IOException {
    return delegate.usage();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
