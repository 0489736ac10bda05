package io.rubix.spi.config;

import java.util.List;

/** Keys of TLS on the data-transfer port: certificates of owners and readers, and whether owners ask readers for theirs. */
public final class TransferTlsKeys {
  public static final ConfigKey ENABLED = new ConfigKey("rubix.network.transfer.tls.enabled", "false",
      "TLS (TLSv1.3, or TLSv1.2) on the data-transfer port: the BookKeeper accepts only TLS connections there, and readers connect with TLS, check the owner's certificate against rubix.network.transfer.tls.truststore.path and that it names the host they connect to (a DNS or IP subject alternative name). Set the same on every node and reader: a plaintext reader and a TLS owner (or the other way round) cannot talk, and that counts as a failed peer (reads go to the source). rubix.network.transfer.secret still authenticates every request and answer, with or without TLS.");
  public static final ConfigKey KEYSTORE_PATH = new ConfigKey("rubix.network.transfer.tls.keystore.path", null,
      "Absolute path of the key store (PKCS12 or JKS) with this node's private key and its certificate chain: the BookKeeper presents it on its data-transfer port (required there with TLS on), and readers present it to owners that ask for a client certificate (required with rubix.network.transfer.tls.client.auth=required). The key's password must be the store's.");
  public static final ConfigKey KEYSTORE_PASSWORD = new ConfigKey("rubix.network.transfer.tls.keystore.password", null,
      "Password of rubix.network.transfer.tls.keystore.path and of the key in it (read through Hadoop's credential providers, then the configuration; never logged).");
  public static final ConfigKey KEYSTORE_TYPE = new ConfigKey("rubix.network.transfer.tls.keystore.type", "PKCS12",
      "Type of rubix.network.transfer.tls.keystore.path: PKCS12 or JKS.");
  public static final ConfigKey TRUSTSTORE_PATH = new ConfigKey("rubix.network.transfer.tls.truststore.path", null,
      "Absolute path of the trust store (PKCS12 or JKS) holding the certificates (usually the cluster's own CA) that owners' certificates, and with rubix.network.transfer.tls.client.auth=required readers' certificates, must chain to. Unset: the JVM's default trust store vouches for owners; required with rubix.network.transfer.tls.client.auth=required.");
  public static final ConfigKey TRUSTSTORE_PASSWORD = new ConfigKey("rubix.network.transfer.tls.truststore.password", null,
      "Password of rubix.network.transfer.tls.truststore.path, if it has one (read through Hadoop's credential providers, then the configuration; never logged). A PKCS12 trust store made by keytool needs it: without it its certificates cannot be read.");
  public static final ConfigKey TRUSTSTORE_TYPE = new ConfigKey("rubix.network.transfer.tls.truststore.type", "PKCS12",
      "Type of rubix.network.transfer.tls.truststore.path: PKCS12 or JKS.");
  public static final ConfigKey CLIENT_AUTH = new ConfigKey("rubix.network.transfer.tls.client.auth", "none",
      "Whether the BookKeeper asks readers for a certificate: none (any reader that reaches the port is served, or with rubix.network.transfer.secret any that holds the secret) or required (mutual TLS: a connection without a certificate that rubix.network.transfer.tls.truststore.path trusts is refused before any request is read). With required, readers must have rubix.network.transfer.tls.keystore.path too.");

  private TransferTlsKeys() {}

  /** Every key declared here, in documentation order. */
  public static List<ConfigKey> all() {
    return List.of(ENABLED, KEYSTORE_PATH, KEYSTORE_PASSWORD, KEYSTORE_TYPE, TRUSTSTORE_PATH, TRUSTSTORE_PASSWORD, TRUSTSTORE_TYPE, CLIENT_AUTH);
  }
}
