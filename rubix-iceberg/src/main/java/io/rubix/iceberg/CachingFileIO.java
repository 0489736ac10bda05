package io.rubix.iceberg;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.CacheEngine;
import io.rubix.core.client.ClientConfig;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.core.stats.CacheCounter;
import io.rubix.spi.config.IcebergKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.hadoop.HadoopConfigurable;
import org.apache.iceberg.hadoop.SerializableConfiguration;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.DelegateFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.io.SupportsStorageCredentials;
import org.apache.iceberg.util.SerializableMap;
import org.apache.iceberg.util.SerializableSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Iceberg {@link FileIO} that wraps another one (S3FileIO, HadoopFileIO, GCSFileIO, ADLSFileIO or
 * ResolvingFileIO, named by the catalog property {@code rubix.iceberg.delegate-io-impl}) and reads files
 * through the RubiX cache: blocks on local disk, embedded or shared through the node's BookKeeper, with
 * the path rules, quotas and metrics the Hadoop file systems have, configured by the same {@code rubix.*}
 * keys (catalog properties over the catalog's Hadoop configuration).
 *
 * <p>Iceberg files are immutable, so a file is known by its location and length: a read with the length
 * given asks the store nothing but the bytes it misses; {@link #newInputFile(String)} takes the length of
 * the file the cache holds at the location, or reads through the delegate and keeps what it read
 * ({@link CachingInputFile}). The names Iceberg does write again, Hadoop tables' numbered metadata files
 * and version hint, are always read from the store ({@link #writtenAgain}). Writes and deletes go to the
 * delegate, and the cache forgets the paths they touch.
 *
 * <p>Serializable as Iceberg needs (Spark ships the FileIO to executors): the delegate travels with it,
 * the cache engine does not; each JVM leases one on its first read, shared by every CachingFileIO of the
 * JVM with the same settings ({@link SharedEngines}), and {@link #close()} gives it back.
 *
 * <p>Thread-safe once initialized. Prefix operations need a delegate that has them
 * ({@link SupportsPrefixOperations}); bulk deletes are the delegate's where it has them, else one at a time.
 */
public final class CachingFileIO implements DelegateFileIO, HadoopConfigurable, SupportsStorageCredentials {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CachingFileIO.class);
  /** Paths handed to the delegate's bulk delete at once; the cache forgets them after each batch. */
  private static final int DELETE_BATCH = 10_000;
  /** A Hadoop table's metadata file: {@code v<version>[.<codec>].metadata.json}, the legacy {@code .gz} suffix too. */
  private static final Pattern NUMBERED_METADATA = Pattern.compile("v\\d+(\\.[A-Za-z0-9]+)?\\.metadata\\.json(\\.gz)?");

  private SerializableMap<String, String> properties;
  private FileIO delegate;
  private SerializableSupplier<Configuration> hadoopConf;
  /** Modifiable, for Kryo, as Iceberg's own FileIOs keep them. */
  private ArrayList<StorageCredential> credentials = new ArrayList<>();
  @GuardedBy("this")
  private transient SharedEngines.Lease lease;

  /** For {@code io-impl}: Iceberg calls {@link #setConf}, {@link #setCredentials} and then {@link #initialize}. */
  public CachingFileIO() {}

  /**
   * Loads the delegate FileIO with the catalog's properties (less the {@code rubix.*} ones), Hadoop
   * configuration and storage credentials, and checks the cache settings.
   *
   * @throws InvalidConfigException when a {@code rubix.*} setting is invalid or the delegate is a CachingFileIO
   */
  @Override
  public void initialize(Map<String, String> catalogProperties) {
    String impl = catalogProperties.getOrDefault(IcebergKeys.DELEGATE_IO_IMPL.name(), "").trim();
    if (impl.isEmpty()) {
      impl = IcebergKeys.DELEGATE_IO_IMPL.defaultValue();
    }
    if (impl.equals(CachingFileIO.class.getName())) {
      throw new InvalidConfigException(IcebergKeys.DELEGATE_IO_IMPL, impl, "a FileIO other than CachingFileIO");
    }
    Configuration settings = SharedEngines.settings(catalogProperties, getConf());
    CacheConfig.from(settings);
    ClientConfig.from(settings);
    Map<String, String> delegateProperties = new HashMap<>();
    catalogProperties.forEach((name, value) -> {
      if (!SharedEngines.isRubixSetting(name)) {
        delegateProperties.put(name, value);
      }
    });
    FileIO previous = delegate;
    release();
    this.properties = SerializableMap.copyOf(catalogProperties);
    this.delegate = CatalogUtil.loadFileIO(impl, delegateProperties, getConf(), credentials);
    if (previous != null) {
      previous.close();
    }
  }

  @Override
  public InputFile newInputFile(String path) {
    return cached(delegate().newInputFile(path), -1);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return cached(delegate().newInputFile(path, length), length);
  }

  private InputFile cached(InputFile file, long length) {
    Optional<CacheEngine> engine = engine();
    if (engine.isEmpty() || writtenAgain(file.location())) {
      return file;
    }
    if (!engine.get().config().rules().caches(file.location())) {
      engine.get().stats().add(CacheCounter.RULE_EXCLUDED_OPENS, 1);
      return file;
    }
    return new CachingInputFile(engine.get(), file, length);
  }

  /**
   * Whether {@code location} names a file Iceberg writes again at the same location: the version hint
   * of a Hadoop table, rewritten at every commit, and its numbered metadata files ({@code v3.metadata.json},
   * {@code v3.gz.metadata.json}), written again from {@code v1} when the table is dropped and created
   * at the same location (the catalog deletes the old ones through Hadoop, not through this FileIO).
   * Every other file Iceberg writes has a name of its own (a UUID, a snapshot id).
   */
  static boolean writtenAgain(String location) {
    String name = location.substring(location.lastIndexOf('/') + 1);
    return name.equals("version-hint.text") || NUMBERED_METADATA.matcher(name).matches();
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return new ForgettingOutputFile(delegate().newOutputFile(path), this::forget, () -> newInputFile(path));
  }

  @Override
  public void deleteFile(String path) {
    try {
      delegate().deleteFile(path);
    } finally {
      forget(path);
    }
  }

  /** The delegate's bulk delete in batches (or its single deletes), the cache forgetting each batch after it. */
  @Override
  public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
    int failed = 0;
    List<String> batch = new ArrayList<>();
    for (String path : paths) {
      batch.add(path);
      if (batch.size() == DELETE_BATCH) {
        failed += deleteBatch(batch);
        batch = new ArrayList<>();
      }
    }
    if (!batch.isEmpty()) {
      failed += deleteBatch(batch);
    }
    if (failed > 0) {
      throw new BulkDeletionFailureException(failed);
    }
  }

  /** Deletes {@code batch}; returns how many deletes failed. */
  private int deleteBatch(List<String> batch) {
    try {
      if (delegate() instanceof SupportsBulkOperations bulk) {
        try {
          bulk.deleteFiles(batch);
          return 0;
        } catch (BulkDeletionFailureException e) {
          return e.numberFailedObjects();
        }
      }
      int failed = 0;
      for (String path : batch) {
        try {
          delegate().deleteFile(path);
        } catch (RuntimeException e) {
          LOG.warn("Deleting {} failed", path, e);
          failed++;
        }
      }
      return failed;
    } finally {
      batch.forEach(this::forget);
    }
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    return prefixOperations().listPrefix(prefix);
  }

  /** The delegate's prefix delete; the cache forgets the files listed under the prefix just before it. */
  @Override
  public void deletePrefix(String prefix) {
    SupportsPrefixOperations prefixed = prefixOperations();
    List<String> listed = new ArrayList<>();
    if (engine().isPresent()) {
      prefixed.listPrefix(prefix).forEach(file -> listed.add(file.location()));
    }
    try {
      prefixed.deletePrefix(prefix);
    } finally {
      listed.forEach(this::forget);
    }
  }

  private SupportsPrefixOperations prefixOperations() {
    if (delegate() instanceof SupportsPrefixOperations prefixed) {
      return prefixed;
    }
    throw new UnsupportedOperationException("The delegate FileIO " + delegate().getClass().getName() + " has no prefix operations");
  }

  private void forget(String path) {
    engine().ifPresent(engine -> engine.invalidate(path));
  }

  @Override
  public Map<String, String> properties() {
    return properties.immutableMap();
  }

  /** The wrapped FileIO. */
  public FileIO delegate() {
    if (delegate == null) {
      throw new IllegalStateException("CachingFileIO is not initialized");
    }
    return delegate;
  }

  /** This JVM's engine for these settings, leased on first use; empty when caching is off. Package-private for tests. */
  synchronized Optional<CacheEngine> engine() {
    if (lease == null) {
      lease = SharedEngines.acquire(SharedEngines.settings(properties, getConf()));
    }
    return lease.engine();
  }

  private synchronized void release() {
    if (lease != null) {
      lease.close();
      lease = null;
    }
  }

  @Override
  public void setConf(Configuration conf) {
    this.hadoopConf = conf == null ? null : new SerializableConfiguration(conf)::get;
    if (delegate != null && conf != null) {
      CatalogUtil.configureHadoopConf(delegate, conf);
    }
  }

  @Override
  public Configuration getConf() {
    return hadoopConf == null ? null : hadoopConf.get();
  }

  @Override
  public void serializeConfWith(Function<Configuration, SerializableSupplier<Configuration>> confSerializer) {
    this.hadoopConf = confSerializer.apply(getConf());
    if (delegate instanceof HadoopConfigurable configurable) {
      configurable.serializeConfWith(confSerializer);
    }
  }

  @Override
  public void setCredentials(List<StorageCredential> storageCredentials) {
    this.credentials = new ArrayList<>(storageCredentials);
    if (delegate instanceof SupportsStorageCredentials supports) {
      supports.setCredentials(storageCredentials);
    }
  }

  @Override
  public List<StorageCredential> credentials() {
    return List.copyOf(credentials);
  }

  /** Gives back this FileIO's lease on the cache engine and closes the delegate. A later read leases an engine again. */
  @Override
  public void close() {
    release();
    if (delegate != null) {
      delegate.close();
    }
  }

  @Override
  public String toString() {
    return "CachingFileIO[" + delegate + "]";
  }
}
