package io.rubix.hadoop.contract;

import io.rubix.hadoop.CachingS3AFileSystem;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's file system contract for {@link CachingS3AFileSystem} against this JVM's S3Proxy
 * ({@link ContractFixtures#s3Server()}), a fresh bucket per contract. Options are in
 * {@code contract/rubix-s3a.xml}. Each contract (one per test method) gets its own file system
 * instance, closed in {@link #teardown()}.
 */
public class CachingS3AContract extends AbstractFSContract {
  static final String CONTRACT_XML = "contract/rubix-s3a.xml";
  private final URI bucketUri;

  private FileSystem fs;

  public CachingS3AContract(Configuration conf) {
    super(conf);
    addConfResource(CONTRACT_XML);
    // a bucket per contract (test method): S3Proxy's in-memory store keeps empty directories that
    // S3 would not, so a suite's leftovers would show up in the next suite's listings
    this.bucketUri = URI.create("s3a://" + ContractFixtures.newBucket() + "/");
  }

  /** The settings of an S3A file system with our class against this JVM's S3 server, added to {@code conf}. */
  static Configuration s3aConfiguration(Configuration conf) {
    Configuration result = new Configuration(conf);
    // only the S3A keys: the suites set others (io.file.buffer.size) that the server's defaults must not undo
    ContractFixtures.s3Server().s3aConfiguration().getPropsWithPrefix("fs.s3a.")
        .forEach((key, value) -> result.set("fs.s3a." + key, value));
    result.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    // suites that provoke S3Proxy errors (file under file) would otherwise wait out the default backoff
    result.set("fs.s3a.retry.interval", "10ms");
    result.set("fs.s3a.retry.throttle.interval", "10ms");
    ContractFixtures.configureCache(result);
    return result;
  }

  @Override
  public void init() throws IOException {
    super.init();
    fs = FileSystem.newInstance(bucketUri, s3aConfiguration(getConf()));
    if (!(fs instanceof CachingS3AFileSystem)) {
      throw new AssertionError("Expected a CachingS3AFileSystem, got " + fs.getClass().getName());
    }

  }

  @Override
  public void teardown() throws IOException {
    if (fs != null) {
      fs.close();
      fs = null;
    }
    super.teardown();
  }

  @Override
  public FileSystem getTestFileSystem() {
    return fs;
  }

  @Override
  public String getScheme() {
    return "s3a";
  }

  @Override
  public Path getTestPath() {
    return fs.makeQualified(new Path("/test"));
  }
}
