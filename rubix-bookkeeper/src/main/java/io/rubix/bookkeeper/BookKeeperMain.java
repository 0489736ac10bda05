package io.rubix.bookkeeper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code rubix-bookkeeper} daemon: {@code BookKeeperMain [--conf rubix-site.xml]... [-Dkey=value]...}.
 * Configuration files are Hadoop XML files; later ones and {@code -D} settings win.
 */
public final class BookKeeperMain {
  private static final Logger LOG = LoggerFactory.getLogger(BookKeeperMain.class);

  private BookKeeperMain() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration(false);
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--conf") && i + 1 < args.length) {
        Path file = Path.of(args[++i]);
        if (!Files.isReadable(file)) {
          System.err.println("Cannot read configuration file " + file);
          System.exit(2);
        }
        conf.addResource(new org.apache.hadoop.fs.Path(file.toUri()));
      } else if (arg.startsWith("-D") && arg.contains("=")) {
        conf.set(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
      } else {
        System.err.println("Usage: rubix-bookkeeper [--conf rubix-site.xml]... [-Dkey=value]...");
        System.exit(2);
      }
    }
    BookKeeperConfig config;
    try {
      config = BookKeeperConfig.from(conf);
    } catch (IllegalArgumentException e) {
      System.err.println("Invalid configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    BookKeeper bookKeeper = BookKeeper.start(config);
    // machine-readable line for supervisors and tests that start the daemon with port 0
    System.out.println("RUBIX_BOOKKEEPER_STARTED port=" + bookKeeper.port() + " metricsPort=" + bookKeeper.metricsPort()
        + " transferPort=" + bookKeeper.transferPort());
    System.out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      LOG.info("Stopping BookKeeper");
      bookKeeper.close();
      stopped.countDown();
    }, "rubix-bookkeeper-shutdown"));
    stopped.await();
  }
}
