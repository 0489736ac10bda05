import java.io.IOException;
import java.net.URI;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The read workload of render.sh (run with the source launcher, `java -cp "DIST/lib/*" RenderWorkload.java
 * PHASE S3_ENDPOINT CACHE_DIR BOOKKEEPER_PORT [SECONDS]`), not part of the build. PHASE is one of:
 * <ul>
 *   <li>{@code upload}: writes {@value #OBJECTS} objects of {@value #OBJECT_MIB} MiB to s3a://demo/ through plain S3A;</li>
 *   <li>{@code read FIRST COUNT SECONDS}: reads objects FIRST..FIRST+COUNT-1 in turn, whole, through
 *       CachingS3AFileSystem in daemon mode for SECONDS (at least once each), as an engine would.</li>
 * </ul>
 * The file system reports its counters to the BookKeeper every rubix.network.client.counters.interval
 * (2 s here) and when it closes.
 */
public final class RenderWorkload {
  static final int OBJECTS = 48;
  static final int OBJECT_MIB = 4;

  public static void main(String[] args) throws Exception {
    String phase = args[0];
    Configuration conf = s3a(args[1]);
    if (phase.equals("upload")) {
      upload(conf);
      return;
    }
    conf.set("fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem");
    conf.set("rubix.cache.dirs", args[2]);
    conf.set("rubix.cluster.embedded.mode", "false");
    conf.set("rubix.network.bookkeeper.server.port", args[3]);
    conf.set("rubix.network.client.counters.interval", "2s");
    int first = Integer.parseInt(args[4]);
    int count = Integer.parseInt(args[5]);
    long seconds = Long.parseLong(args[6]);
    read(conf, first, count, seconds);
  }

  private static Configuration s3a(String endpoint) {
    Configuration conf = new Configuration();
    conf.set("fs.s3a.endpoint", endpoint);
    conf.set("fs.s3a.endpoint.region", "us-east-1");
    conf.set("fs.s3a.access.key", "rubix-access");
    conf.set("fs.s3a.secret.key", "rubix-secret");
    conf.set("fs.s3a.path.style.access", "true");
    conf.set("fs.s3a.connection.ssl.enabled", "false");
    conf.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set("fs.s3a.change.detection.version.required", "false");
    // Hadoop 3.4's default (analytics) keeps blocks in memory per file system: re-reads would not reach S3 or the cache
    conf.set("fs.s3a.input.stream.type", "classic");
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    return conf;
  }

  private static Path object(int index) {
    return new Path(String.format("s3a://demo/table/part-%05d.bin", index));
  }

  private static void upload(Configuration conf) throws IOException {
    byte[] data = new byte[OBJECT_MIB << 20];
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://demo/"), conf)) {
      for (int i = 0; i < OBJECTS; i++) {
        new Random(i).nextBytes(data);
        try (FSDataOutputStream out = fs.create(object(i))) {
          out.write(data);
        }
      }
    }
    System.out.println("uploaded " + OBJECTS + " objects of " + OBJECT_MIB + " MiB");
  }

  private static void read(Configuration conf, int first, int count, long seconds) throws IOException, InterruptedException {
    byte[] buffer = new byte[1 << 20];
    long bytes = 0;
    long started = System.nanoTime();
    long deadline = started + seconds * 1_000_000_000L;
    int reads = 0;
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://demo/"), conf)) {
      while (reads < count || System.nanoTime() < deadline) {
        try (FSDataInputStream in = fs.open(object(first + reads % count))) {
          for (int n; (n = in.read(buffer)) > 0; ) {
            bytes += n;
          }
        }
        reads++;
        // an engine's pace, not a synchronisation: keeps warm reads from taking both cores of the machine
        Thread.sleep(100);
      }
    }
    System.out.printf("read objects %d..%d: %d reads, %d MiB in %.1f s%n", first, first + count - 1, reads, bytes >> 20,
        (System.nanoTime() - started) / 1e9);
  }
}
