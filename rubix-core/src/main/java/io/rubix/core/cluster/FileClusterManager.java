package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.spi.cluster.ClusterListener;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterView;
import io.rubix.spi.cluster.LocalIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node list of a local file ({@code rubix.cluster.nodes.file}), e.g. one that provisioning keeps
 * up to date. A daemon thread checks the file's modification time and size every refresh interval
 * and re-reads it when either changed; readers only ever read the published view. A missing,
 * unreadable or malformed file leaves the last list in place (logged once per distinct problem).
 */
public final class FileClusterManager implements ClusterManager {
  private static final Logger LOG = LoggerFactory.getLogger(FileClusterManager.class);

  private final Path file;
  private final int defaultPort;
  private final ViewHolder holder;
  private final ScheduledExecutorService scheduler;
  // read and written by the refreshing thread only (and the constructor, before it starts)
  @GuardedBy("this")
  private Object lastStamp;
  @GuardedBy("this")
  private String lastProblem;

  public FileClusterManager(Path file, int defaultPort, LocalIdentity identity, Duration refreshInterval) {
    this.file = requireNonNull(file, "file is null");
    this.defaultPort = defaultPort;
    this.holder = new ViewHolder(identity, file.toString());
    refresh();
    this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "rubix-cluster-file-" + file.getFileName());
      thread.setDaemon(true);
      return thread;
    });
    long millis = refreshInterval.toMillis();
    scheduler.scheduleWithFixedDelay(this::refresh, millis, millis, TimeUnit.MILLISECONDS);
  }

  @Override
  public ClusterView view() {
    return holder.view();
  }

  @Override
  public void addListener(ClusterListener listener) {
    holder.addListener(listener);
  }

  /** Re-reads the file if it changed since the last read; never throws. */
  synchronized void refresh() {
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      Object stamp = attributes.lastModifiedTime().toMillis() + "/" + attributes.size() + "/" + attributes.fileKey();
      if (stamp.equals(lastStamp)) {
        return;
      }
      String text = Files.readString(file);
      holder.publish(NodeList.parse(text, defaultPort, file.toString()));
      lastStamp = stamp;
      lastProblem = null;
    } catch (IOException | RuntimeException e) {
      String problem = e.toString();
      if (!Objects.equals(problem, lastProblem)) {
        LOG.warn("Cannot read the cluster node list {}; keeping the last list ({} nodes)", file, holder.view().nodes().size(), e);
        lastProblem = problem;
      }
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
