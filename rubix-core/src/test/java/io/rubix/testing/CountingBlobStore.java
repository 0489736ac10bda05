package io.rubix.testing;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;

/**
 * A BlobStore decorator that counts what the S3 server serves (GETs, HEADs, LISTs, body bytes) and can
 * add a first-byte latency and a per-connection bandwidth limit to every GET, and a latency to every
 * HEAD and LIST, like a cloud object store. Tests prove "served from cache" with these counts, not
 * with the cache's own counters.
 */
public final class CountingBlobStore extends ForwardingBlobStore {
  private final AtomicLong gets = new AtomicLong();
  private final AtomicLong heads = new AtomicLong();
  private final AtomicLong lists = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  /** Requests per object: {@code "GET bucket/key"}, {@code "HEAD bucket/key"}, {@code "LIST bucket/prefix"}. */
  private final Map<String, LongAdder> perObject = new ConcurrentHashMap<>();
  private volatile Duration firstByteLatency = Duration.ZERO;
  private volatile Duration metadataLatency = Duration.ZERO;
  private volatile long bytesPerSecond;

  public CountingBlobStore(BlobStore delegate) {
    super(delegate);
  }

  public long gets() {
    return gets.get();
  }

  public long heads() {
    return heads.get();
  }

  /** Object listings (ListObjects V1 and V2 both end here). */
  public long lists() {
    return lists.get();
  }

  /** Body bytes the server has sent for GETs (counted as they are read by the server, i.e. sent). */
  public long bytesServed() {
    return bytes.get();
  }

  /**
   * The requests served since the last reset per object, sorted: {@code "GET bucket/key"},
   * {@code "HEAD bucket/key"} (of objects and of keys that are not there), {@code "LIST bucket/prefix"}.
   */
  public Map<String, Long> requestsPerObject() {
    Map<String, Long> snapshot = new TreeMap<>();
    perObject.forEach((request, count) -> snapshot.put(request, count.sum()));
    return snapshot;
  }

  public void reset() {
    gets.set(0);
    heads.set(0);
    lists.set(0);
    bytes.set(0);
    perObject.clear();
  }

  private void count(String method, String bucket, String key) {
    perObject.computeIfAbsent(method + " " + bucket + "/" + (key == null ? "" : key), request -> new LongAdder()).increment();
  }

  /** Adds {@code latency} before the first byte of every GET. */
  public void setFirstByteLatency(Duration latency) {
    this.firstByteLatency = latency;
  }

  /**
   * Adds {@code latency} before every HEAD and LIST answer. Zero unless set: the tests that give GETs a
   * first-byte latency keep their timings, and the benchmark opts in.
   */
  public void setMetadataLatency(Duration latency) {
    this.metadataLatency = latency;
  }

  /** Limits each GET's body to {@code bytesPerSecond} (0: unlimited). */
  public void setBandwidth(long bytesPerSecond) {
    this.bytesPerSecond = bytesPerSecond;
  }

  @Override
  public HeadObjectResponse blobMetadata(HeadObjectRequest request) {
    heads.incrementAndGet();
    count("HEAD", request.bucket(), request.key());
    pause(metadataLatency.toNanos());
    return super.blobMetadata(request);
  }

  @Override
  public ListObjectsV2Response list(ListObjectsV2Request request) {
    lists.incrementAndGet();
    count("LIST", request.bucket(), request.prefix());
    pause(metadataLatency.toNanos());
    return super.list(request);
  }

  @Override
  public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
    gets.incrementAndGet();
    count("GET", request.bucket(), request.key());
    pause(firstByteLatency.toNanos());
    ResponseInputStream<GetObjectResponse> original = super.getBlob(request);
    if (original == null) {
      return null;
    }
    return new ResponseInputStream<>(original.response(), new Counted(original, bytesPerSecond));
  }

  private static void pause(long nanos) {
    if (nanos <= 0) {
      return;
    }
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final class Counted extends FilterInputStream {
    private final long rate;
    private final long start = System.nanoTime();
    private long sent;

    Counted(InputStream in, long rate) {
      super(in);
      this.rate = rate;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        account(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, rate > 0 ? Math.min(length, 64 * 1024) : length);
      if (n > 0) {
        account(n);
      }
      return n;
    }

    private void account(int n) {
      bytes.addAndGet(n);
      sent += n;
      if (rate > 0) {
        long due = start + sent * 1_000_000_000L / rate;
        pause(due - System.nanoTime());
      }
    }
  }
}

