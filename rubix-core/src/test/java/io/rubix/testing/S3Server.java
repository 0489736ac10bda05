package io.rubix.testing;

import java.net.URI;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.services.s3.model.CreateBucketRequest;

/**
 * A real S3 API server (S3Proxy) on 127.0.0.1 with an ephemeral port, backed by memory or a directory,
 * with a {@link CountingBlobStore} in front so tests can see what it served.
 */
public final class S3Server implements AutoCloseable {
  public static final String ACCESS_KEY = "rubix-access";
  public static final String SECRET_KEY = "rubix-secret";

  private final S3Proxy proxy;
  private final CountingBlobStore store;

  private S3Server(BlobStore backing) throws Exception {
    this.store = new CountingBlobStore(backing);
    this.proxy = S3Proxy.builder()
        .blobStore(store)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .ignoreUnknownHeaders(true)
        .build();
    proxy.start();
    while (!"STARTED".equals(proxy.getState())) {
      Thread.onSpinWait();
    }
  }

  /** A server keeping objects in memory. */
  public static S3Server inMemory() throws Exception {
    return new S3Server(new TransientNio2BlobStore());
  }

  /** A server keeping objects under {@code directory}. */
  public static S3Server onDisk(Path directory) throws Exception {
    return new S3Server(new FilesystemNio2BlobStore(directory.toString()));
  }

  public CountingBlobStore store() {
    return store;
  }

  public String endpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  public void createBucket(String bucket) {
    store.createContainer(CreateBucketRequest.builder().bucket(bucket).build());
  }

  /** Hadoop settings for S3A against this server (path-style access, no SSL, test credentials). */
  public Configuration s3aConfiguration() {
    Configuration conf = new Configuration();
    conf.set("fs.s3a.endpoint", endpoint());
    conf.set("fs.s3a.endpoint.region", "us-east-1");
    conf.set("fs.s3a.access.key", ACCESS_KEY);
    conf.set("fs.s3a.secret.key", SECRET_KEY);
    conf.set("fs.s3a.path.style.access", "true");
    conf.set("fs.s3a.connection.ssl.enabled", "false");
    conf.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set("fs.s3a.change.detection.version.required", "false");
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    conf.set("fs.s3a.attempts.maximum", "2");
    conf.set("fs.s3a.retry.limit", "2");
    return conf;
  }

  @Override
  public void close() {
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new IllegalStateException("Stopping S3Proxy failed", e);
    }
  }
}
