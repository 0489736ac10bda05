package io.rubix.core.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.core.config.Secret;
import io.rubix.spi.config.ConfigKey;
import io.rubix.spi.config.TransferTlsKeys;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * TLS on the data-transfer port ({@code rubix.network.transfer.tls.*}), as configured: which stores
 * to load and whether owners ask readers for a certificate. {@link TransferTls} loads the stores.
 *
 * @param keyStore this node's key and certificate: presented by an owner, and by a reader an owner asks
 * @param trustStore what peers' certificates must chain to; empty: the JVM's default trust store
 */
public record TransferTlsConfig(boolean enabled, Optional<Store> keyStore, Optional<Store> trustStore, ClientAuth clientAuth) {
  /** Plaintext transfers. */
  public static final TransferTlsConfig DISABLED = new TransferTlsConfig(false, Optional.empty(), Optional.empty(), ClientAuth.NONE);

  public TransferTlsConfig {
    requireNonNull(keyStore, "keyStore is null");
    requireNonNull(trustStore, "trustStore is null");
    requireNonNull(clientAuth, "clientAuth is null");
    if (enabled && clientAuth == ClientAuth.REQUIRED && (keyStore.isEmpty() || trustStore.isEmpty())) {
      throw new InvalidConfigException(keyStore.isEmpty() ? TransferTlsKeys.KEYSTORE_PATH : TransferTlsKeys.TRUSTSTORE_PATH, "",
          "a store file when " + TransferTlsKeys.CLIENT_AUTH.name() + "=required (readers present their key store's certificate, owners trust"
              + " only the trust store's)");
    }
  }

  /**
   * A key or trust store file; {@code toString()} hides the password.
   *
   * @param pathKey the key that named the file, for messages
   */
  public record Store(Path path, Optional<Secret> password, StoreType type, ConfigKey pathKey) {
    public Store {
      requireNonNull(path, "path is null");
      requireNonNull(password, "password is null");
      requireNonNull(type, "type is null");
      requireNonNull(pathKey, "pathKey is null");
    }
  }

  /** Whether an owner asks readers for a certificate. See {@code rubix.network.transfer.tls.client.auth}. */
  public enum ClientAuth implements ConfigReader.ConfigEnum {
    NONE("none"),
    REQUIRED("required");

    private final String configName;

    ClientAuth(String configName) {
      this.configName = configName;
    }

    @Override
    public String configName() {
      return configName;
    }
  }

  /** The key store formats the JDK reads without a provider of its own. */
  public enum StoreType implements ConfigReader.ConfigEnum {
    PKCS12("PKCS12"),
    JKS("JKS");

    private final String configName;

    StoreType(String configName) {
      this.configName = configName;
    }

    @Override
    public String configName() {
      return configName;
    }
  }

  /** The settings in {@code conf}; every value is checked, also with TLS off, the rules between keys only with it on. */
  public static TransferTlsConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    boolean enabled = reader.getBoolean(TransferTlsKeys.ENABLED);
    ClientAuth clientAuth = reader.getEnum(TransferTlsKeys.CLIENT_AUTH, ClientAuth.class);
    Optional<Store> keyStore = store(reader, TransferTlsKeys.KEYSTORE_PATH, TransferTlsKeys.KEYSTORE_PASSWORD, TransferTlsKeys.KEYSTORE_TYPE);
    Optional<Store> trustStore = store(reader, TransferTlsKeys.TRUSTSTORE_PATH, TransferTlsKeys.TRUSTSTORE_PASSWORD, TransferTlsKeys.TRUSTSTORE_TYPE);
    return enabled ? new TransferTlsConfig(true, keyStore, trustStore, clientAuth) : DISABLED;
  }

  private static Optional<Store> store(ConfigReader reader, ConfigKey pathKey, ConfigKey passwordKey, ConfigKey typeKey) {
    StoreType type = reader.getEnum(typeKey, StoreType.class);
    String path = reader.raw(pathKey);
    if (path == null) {
      if (reader.isSet(passwordKey) || reader.isSet(typeKey)) {
        throw new InvalidConfigException(pathKey, "", "a store file when " + passwordKey.name() + " or " + typeKey.name() + " is set");
      }
      return Optional.empty();
    }
    if (!Path.of(path).isAbsolute()) {
      throw new InvalidConfigException(pathKey, path, "an absolute path of a " + type.configName() + " store file");
    }
    return Optional.of(new Store(Path.of(path), reader.secret(passwordKey), type, pathKey));
  }
}
