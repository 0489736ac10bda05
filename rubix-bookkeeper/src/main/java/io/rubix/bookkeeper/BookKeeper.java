package io.rubix.bookkeeper;

import static java.util.Objects.requireNonNull;

import io.rubix.bookkeeper.fetch.PeerFill;
import io.rubix.bookkeeper.metrics.DaemonMetrics;
import io.rubix.bookkeeper.metrics.InsightMetrics;
import io.rubix.bookkeeper.metrics.MetricsEndpoint;
import io.rubix.bookkeeper.metrics.RuleMetrics;
import io.rubix.bookkeeper.server.AsyncBookKeeperHandler;
import io.rubix.bookkeeper.server.BookKeeperHandler;
import io.rubix.bookkeeper.server.EngineCounters;
import io.rubix.bookkeeper.server.FrameDeadlineServerSocket;
import io.rubix.bookkeeper.server.InlineCallServer;
import io.rubix.bookkeeper.server.ServerCounters;
import io.rubix.bookkeeper.transfer.TransferServer;
import io.rubix.core.client.BookKeeperSecret;
import io.rubix.core.insight.CacheInsightBean;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceCounters;
import io.rubix.core.metadata.journal.FileMetadataJournal;
import io.rubix.core.peer.PeerConfig;
import io.rubix.core.peer.TransferTlsConfig;
import io.rubix.core.stats.JmxBeans;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.DataFileLayout;
import io.rubix.spi.thrift.BookKeeperService;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ConnectionAuth;
import io.rubix.spi.wire.ThriftCodec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-node BookKeeper: one {@link InProcessMetadataService} with a persistent journal, served over
 * a bounded non-blocking Thrift server, with a Prometheus endpoint and a JMX bean. Runs as the
 * {@code rubix-bookkeeper} daemon or embedded in a JVM (several instances per JVM work: no static state).
 */
public final class BookKeeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BookKeeper.class);
  /** Subdirectory of each cache directory that the daemon owns. */
  public static final String ROOT = DataFileLayout.DAEMON_ROOT;

  private final BookKeeperConfig config;
  private final InProcessMetadataService service;
  private final ServerCounters counters = new ServerCounters();
  private final EngineCounters engineCounters = new EngineCounters();
  private final FrameDeadlineServerSocket socket;
  private final TThreadedSelectorServer server;
  private final Thread serverThread;
  private final MetricsEndpoint metrics;
  private final TransferServer transfer;
  /** Fetches blocks from the source for peers, with its cache engine and sources; null when off. */
  private final PeerFill peerFill;
  private final ObjectName beanName;
  private final ObjectName insightBeanName;
  private final long startedAt = System.currentTimeMillis();

  private BookKeeper(BookKeeperConfig config) throws IOException {
    this.config = requireNonNull(config, "config is null");
    List<Path> roots = new ArrayList<>();
    for (Path dir : config.cache().cacheDirs()) {
      Path root = dir.resolve(ROOT);
      Files.createDirectories(root);
      restrictToGroup(root);
      roots.add(root);
    }
    long recoveryStart = System.nanoTime();
    this.service = InProcessMetadataService.forDirectories(config.cache(), roots, new FileMetadataJournal(config.cache().blockSize()));
    LOG.info("Recovered {} blocks in {} ms", service.counters().recoveredBlocks(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - recoveryStart));
    TServiceInfo info = new TServiceInfo(ThriftCodec.PROTOCOL_VERSION, config.cache().blockSize(), config.nodeId(), startedAt);
    BookKeeperHandler handler = new BookKeeperHandler(service, info, counters, this::stats, engineCounters);
    SecureRandom random = new SecureRandom();
    ConnectionAuth auth = new ConnectionAuth(BookKeeperSecret.readOrCreate(config.secretFile(), random), random);
    try {
      this.socket = new FrameDeadlineServerSocket(new InetSocketAddress(config.bindAddress(), config.port()), config.maxFrameSize(), config.frameTimeout(),
          auth, counters);
    } catch (TTransportException e) {
      throw new IOException("Cannot listen on " + config.bindAddress() + ":" + config.port(), e);
    }
    TThreadedSelectorServer.Args args = new TThreadedSelectorServer.Args(socket)
        .processor(new BookKeeperService.AsyncProcessor<>(new AsyncBookKeeperHandler(handler, service, counters)))
        .protocolFactory(new TBinaryProtocol.Factory(true, true, config.maxFrameSize(), 1_000_000))
        .transportFactory(new TFramedTransport.Factory(config.maxFrameSize()))
        .selectorThreads(2)
        .workerThreads(config.workerThreads());
    args.maxReadBufferBytes = 8L * config.maxFrameSize();
    // status, info and the registration of a wait only touch memory under the metadata lock: answered on the
    // selector thread, no worker hand-off (a wait is answered later, by whoever settles it)
    this.server = new InlineCallServer(args, socket, Set.of("status", "info", "awaitInFlight"));
    this.serverThread = new Thread(server::serve, "rubix-bookkeeper-" + socket.getPort());
    serverThread.setDaemon(true);
    serverThread.start();
    PeerConfig peer = config.transfer();
    TransferServer transferServer = null;
    MetricsEndpoint metricsEndpoint = null;
    PeerFill fill = peer.port() >= 0 && config.fetch().enabled() ? PeerFill.start(config.cache(), config.fetch(), peer, config.sourceConf(), service) : null;
    try {
      transferServer = peer.port() >= 0
          ? new TransferServer(service, config.transferBindAddress(), peer, fill == null ? null : fill.fetcher())
          : null;
      metricsEndpoint = config.metricsPort() >= 0 ? new MetricsEndpoint(config.metricsBindAddress(), config.metricsPort(), new DaemonMetrics(this::metricValues)) : null;
    } catch (IOException | RuntimeException e) {
      if (transferServer != null) {
        transferServer.close();
      }
      if (fill != null) {
        fill.close();
      }
      server.stop();
      socket.close();
      service.close();
      throw e;
    }
    this.transfer = transferServer;
    this.peerFill = fill;
    this.metrics = metricsEndpoint;
    this.beanName = registerBean();
    this.insightBeanName = registerInsightBean();
    LOG.info("BookKeeper {} listening on {}:{} (secret {}; metrics {}; transfer {}), caching in {}", config.nodeId(), config.bindAddress(), port(),
        config.secretFile(), metrics == null ? "off" : config.metricsBindAddress() + ":" + metrics.port(),
        transfer == null ? "off" : config.transferBindAddress() + ":" + transfer.port() + tlsNote(peer.tls()), roots);
  }

  /**
   * Makes {@code root} {@code rwxrws---}: the {@code rubix} group's engine JVMs can create cache files
   * in it and, through the set-group-id bit, files and directories created under it belong to that
   * group whatever the creating user's primary group (a plain chmod 0770 would clear the bit).
   */
  private static void restrictToGroup(Path root) {
    try {
      Files.setAttribute(root, "unix:mode", 02770);
    } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
      try {
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwx---"));
      } catch (UnsupportedOperationException | IOException e2) {
        LOG.warn("Cannot restrict permissions of {}", root, e2);
      }
    }
  }

  /** Starts a BookKeeper; it serves until {@link #close()}. */
  public static BookKeeper start(BookKeeperConfig config) throws IOException {
    BookKeeper bookKeeper = new BookKeeper(config);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!bookKeeper.server.isServing()) {
      if (System.nanoTime() > deadline) {
        bookKeeper.close();
        throw new IOException("BookKeeper Thrift server did not start");
      }
      Thread.onSpinWait();
    }
    return bookKeeper;
  }

  public int port() {
    return socket.getPort();
  }

  public int metricsPort() {
    return metrics == null ? -1 : metrics.port();
  }

  private static String tlsNote(TransferTlsConfig tls) {
    if (!tls.enabled()) {
      return "";
    }
    return tls.clientAuth() == TransferTlsConfig.ClientAuth.REQUIRED ? " over TLS, client certificates required" : " over TLS";
  }

  /** The data-transfer port peers read cached blocks from, or -1 when it is off. */
  public int transferPort() {
    return transfer == null ? -1 : transfer.port();
  }

  public InProcessMetadataService service() {
    return service;
  }

  public BookKeeperConfig config() {
    return config;
  }

  Map<String, Long> stats() {
    return stats(service.insight());
  }

  private Map<String, Long> stats(CacheInsightReport insight) {
    Map<String, Long> values = new LinkedHashMap<>(counters.snapshot());
    CacheUsage usage = service.usage();
    ServiceCounters serviceCounters = service.counters();
    values.put("rubix_cache_used_bytes", usage.usedBytes());
    values.put("rubix_cache_capacity_bytes", usage.disks().stream().mapToLong(CacheUsage.Disk::capacityBytes).sum());
    values.put("rubix_cache_reserved_bytes", usage.disks().stream().mapToLong(CacheUsage.Disk::reservedBytes).sum());
    values.put("rubix_cache_objects", (long) usage.disks().stream().mapToInt(CacheUsage.Disk::objects).sum());
    values.put("rubix_cache_evictions", usage.evictions());
    values.put("rubix_cache_admission_rejections", usage.admissionRejections());
    values.put("rubix_cache_expirations", serviceCounters.expirations());
    values.put("rubix_cache_expire_after_idle_seconds", config.cache().expireAfterIdle().toSeconds());
    values.put("rubix_cache_recovered_blocks", serviceCounters.recoveredBlocks());
    values.put("rubix_cache_refused_commit_blocks", serviceCounters.refusedBlocks());
    values.put("rubix_rule_excluded_requests", serviceCounters.ruleExcludedRequests());
    values.put("rubix_bookkeeper_started_at_millis", startedAt);
    if (transfer != null) {
      values.put("rubix_transfer_requests", transfer.requests());
      values.put("rubix_transfer_bytes_served", transfer.bytesServed());
      values.put("rubix_transfer_refused_connections", transfer.refused());
      values.put("rubix_transfer_bad_requests", transfer.badRequests());
      values.put("rubix_transfer_unauthorized_requests", transfer.unauthorized());
      values.put("rubix_transfer_refused_handshakes", transfer.refusedHandshakes());
    }
    values.put("rubix_peer_fill_enabled", peerFill == null ? 0L : 1L);
    if (peerFill != null) {
      values.putAll(peerFill.counters());
    }
    values.putAll(engineCounters.snapshot());
    RuleMetrics.putStats(serviceCounters.ruleUsage(), values);
    InsightMetrics.counters(insight, values);
    return values;
  }

  /** What one scrape of /metrics shows, read once. */
  private DaemonMetrics.Values metricValues() {
    CacheInsightReport insight = service.insight();
    return new DaemonMetrics.Values(stats(insight), service.usage().disks(), service.counters().ruleUsage(), insight);
  }

  private ObjectName registerBean() {
    BookKeeperStatsMXBean bean = new BookKeeperStatsMXBean() {
      @Override
      public Map<String, Long> getCounters() {
        return stats();
      }

      @Override
      public long getCacheUsedBytes() {
        return service.usage().usedBytes();
      }

      @Override
      public long getCacheCapacityBytes() {
        return service.usage().disks().stream().mapToLong(CacheUsage.Disk::capacityBytes).sum();
      }

      @Override
      public long getEvictions() {
        return service.usage().evictions();
      }

      @Override
      public long getRecoveredBlocks() {
        return service.counters().recoveredBlocks();
      }

      @Override
      public int getTransferPort() {
        return transferPort();
      }
    };
    return JmxBeans.register(bean, "io.rubix:type=BookKeeper,port=" + port(), "the BookKeeper");
  }

  private ObjectName registerInsightBean() {
    return JmxBeans.register(new CacheInsightBean(service), "io.rubix:type=CacheInsight,name=BookKeeper,port=" + port(),
        "the BookKeeper's cache insight");
  }

  @Override
  public void close() {
    if (transfer != null) {
      transfer.close();
    }
    if (peerFill != null) {
      peerFill.close();
    }
    server.stop();
    socket.close();
    try {
      serverThread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (metrics != null) {
      metrics.close();
    }
    JmxBeans.unregister(beanName, insightBeanName);
    service.close();
  }
}
