package io.rubix.bookkeeper.cli;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.ClientConfig;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.thrift.TServiceInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Options every command takes: where the configuration is and where the daemon listens. */
final class DaemonOptions {
  static final String CONF_DIR_VARIABLE = "RUBIX_CONF_DIR";
  static final String DEFAULT_CONF_DIR = "/etc/rubix";
  static final String SITE_FILE = "rubix-site.xml";

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--conf", paramLabel = "FILE",
      description = "Hadoop XML configuration file; repeatable, later files win. Default: $RUBIX_CONF_DIR/rubix-site.xml "
          + "(RUBIX_CONF_DIR defaults to /etc/rubix) when it exists. core-site.xml on the class path is read too.")
  List<Path> confFiles = new ArrayList<>();

  @Option(names = "--host", paramLabel = "HOST", description = "BookKeeper host (default: rubix.network.bookkeeper.host, 127.0.0.1).")
  String host;

  @Option(names = "--port", paramLabel = "PORT", description = "BookKeeper Thrift port (default: rubix.network.bookkeeper.server.port, 8899).")
  Integer port;

  @Option(names = "-D", paramLabel = "KEY=VALUE", description = "Sets a configuration key; wins over the files.")
  Map<String, String> properties = new LinkedHashMap<>();

  /** The configuration of this invocation: class path resources, then the files, then -D, then --host/--port. */
  Configuration configuration() {
    Configuration conf = new Configuration();
    List<Path> files = new ArrayList<>(confFiles);
    if (files.isEmpty()) {
      String dir = ((RubixCli) spec.root().userObject()).environment(CONF_DIR_VARIABLE);
      Path site = Path.of(dir == null || dir.isBlank() ? DEFAULT_CONF_DIR : dir, SITE_FILE);
      if (Files.isReadable(site)) {
        files.add(site);
      }
    }
    for (Path file : files) {
      if (!Files.isReadable(file)) {
        throw new ParameterException(spec.commandLine(), "Cannot read configuration file " + file);
      }
      conf.addResource(new org.apache.hadoop.fs.Path(file.toAbsolutePath().toUri()));
    }
    properties.forEach(conf::set);
    if (host != null) {
      conf.set(BookKeeperKeys.SERVER_HOST.name(), host);
    }
    if (port != null) {
      if (port < 1 || port > 65535) {
        throw new ParameterException(spec.commandLine(), "--port must be in [1, 65535]: " + port);
      }
      conf.set(BookKeeperKeys.SERVER_PORT.name(), Integer.toString(port));
    }
    return conf;
  }

  /** A connected client of the daemon this invocation's {@link #configuration()} names. */
  Daemon connect() throws IOException {
    return connect(configuration());
  }

  /**
   * What the daemon answers now, with its {@code top} largest cached files when {@code listFiles}.
   *
   * @param top the command's {@code --top} option: negative is a usage error
   */
  DaemonSnapshot snapshot(int top, boolean listFiles) throws IOException {
    if (top < 0) {
      throw new ParameterException(spec.commandLine(), "--top must not be negative: " + top);
    }
    try (Daemon daemon = connect()) {
      return DaemonSnapshot.take(daemon, listFiles ? top : 0);
    }
  }

  /** A connected client of the daemon, built with the daemon's own block size. */
  static Daemon connect(Configuration conf) throws IOException {
    ClientConfig clientConfig;
    try {
      clientConfig = ClientConfig.from(conf);
    } catch (IllegalArgumentException e) {
      throw new IOException("Invalid configuration: " + e.getMessage(), e);
    }
    TServiceInfo info;
    try {
      info = BookKeeperClient.probe(clientConfig);
    } catch (IOException e) {
      Throwable cause = e;
      while (cause.getCause() != null && cause.getCause() != cause) {
        cause = cause.getCause();
      }
      throw new IOException("BookKeeper at " + clientConfig.host() + ":" + clientConfig.port() + " is not reachable (is rubix-bookkeeper "
          + "running?): " + cause);
    }
    return new Daemon(clientConfig, info, new BookKeeperClient(clientConfig, info.getBlockSize(), System::nanoTime));
  }

  /** A daemon this command talks to. */
  record Daemon(ClientConfig config, TServiceInfo info, BookKeeperClient client) implements AutoCloseable {
    String address() {
      return config.host() + ":" + config.port();
    }

    @Override
    public void close() {
      client.close();
    }
  }
}
