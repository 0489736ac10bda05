package io.rubix.core.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.InvalidConfigException;
import io.rubix.core.peer.TransferTlsConfig.ClientAuth;
import io.rubix.core.peer.TransferTlsConfig.Store;
import io.rubix.spi.config.TransferTlsKeys;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Collections;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS ends of data-transfer connections, from stores loaded once ({@link TransferTlsConfig}):
 * TLSv1.3 or TLSv1.2 with the JDK's default cipher suites. A reader checks the owner's certificate
 * against the trust store and that it names the host it connected to (endpoint identification
 * {@code HTTPS}: a DNS or IP subject alternative name), and presents its own key when it has one; an
 * owner presents its key and, with {@link ClientAuth#REQUIRED}, refuses a reader without a certificate
 * the trust store vouches for. Both ends are layered over a socket already connected, and the
 * handshake is done before they are returned, so a handshake failure is told apart from a failure
 * of the exchange after it. Sessions are resumed between connections of one instance (readers open
 * one connection per request). Thread-safe.
 */
public final class TransferTls {
  private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

  private final SSLContext context;
  private final ClientAuth clientAuth;

  private TransferTls(SSLContext context, ClientAuth clientAuth) {
    this.context = requireNonNull(context, "context is null");
    this.clientAuth = requireNonNull(clientAuth, "clientAuth is null");
  }

  /** The owner's side: needs a key store. Unreadable stores fail with an {@link InvalidConfigException} naming their key. */
  public static TransferTls owner(TransferTlsConfig config) {
    requireEnabled(config);
    if (config.keyStore().isEmpty()) {
      throw new InvalidConfigException(TransferTlsKeys.KEYSTORE_PATH, "",
          "a key store file on a BookKeeper with " + TransferTlsKeys.ENABLED.name() + "=true (its certificate is what readers check)");
    }
    return load(config);
  }

  /** The reader's side. Unreadable stores fail with an {@link InvalidConfigException} naming their key. */
  public static TransferTls reader(TransferTlsConfig config) {
    requireEnabled(config);
    return load(config);
  }

  private static void requireEnabled(TransferTlsConfig config) {
    if (!config.enabled()) {
      throw new IllegalArgumentException("TLS is off: " + config);
    }
  }

  private static TransferTls load(TransferTlsConfig config) {
    KeyManager[] keys = config.keyStore().map(TransferTls::keyManagers).orElse(null);
    TrustManager[] trust = config.trustStore().map(TransferTls::trustManagers).orElse(null);
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys, trust, null);
      return new TransferTls(context, config.clientAuth());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("This JVM offers no TLS", e);
    }
  }

  /** The reader's end of {@code connected}, a connection to {@code host}:{@code port}, handshake done. Closing it closes {@code connected}. */
  public SSLSocket client(Socket connected, String host, int port) throws IOException {
    SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(connected, host, port, true);
    SSLParameters parameters = context.getDefaultSSLParameters();
    parameters.setProtocols(PROTOCOLS);
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    socket.setSSLParameters(parameters);
    socket.startHandshake();
    return socket;
  }

  /**
   * The owner's end of {@code accepted}, handshake done (within {@code accepted}'s read timeout per read);
   * {@code consumed} holds the bytes already read from it. Closing it closes {@code accepted}.
   */
  public SSLSocket server(Socket accepted, InputStream consumed) throws IOException {
    SSLSocketFactory factory = context.getSocketFactory();
    SSLSocket socket = (SSLSocket) factory.createSocket(accepted, consumed, true);
    SSLParameters parameters = context.getDefaultSSLParameters();
    parameters.setProtocols(PROTOCOLS);
    parameters.setNeedClientAuth(clientAuth == ClientAuth.REQUIRED);
    socket.setSSLParameters(parameters);
    socket.startHandshake();
    return socket;
  }

  private static KeyManager[] keyManagers(Store store) {
    KeyStore keyStore = read(store, TransferTlsKeys.KEYSTORE_PASSWORD.name());
    try {
      boolean hasKey = false;
      for (String alias : Collections.list(keyStore.aliases())) {
        hasKey |= keyStore.isKeyEntry(alias);
      }
      if (!hasKey) {
        throw invalid(store, "a key store holding a private key and its certificate chain (it holds none)");
      }
      KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(keyStore, store.password().map(secret -> secret.reveal().toCharArray()).orElse(new char[0]));
      return factory.getKeyManagers();
    } catch (GeneralSecurityException e) {
      throw invalid(store, "a key store whose key has the password of " + TransferTlsKeys.KEYSTORE_PASSWORD.name() + " (" + e + ")");
    }
  }

  private static TrustManager[] trustManagers(Store store) {
    KeyStore trustStore = read(store, TransferTlsKeys.TRUSTSTORE_PASSWORD.name());
    try {
      boolean hasCertificate = false;
      for (String alias : Collections.list(trustStore.aliases())) {
        hasCertificate |= trustStore.isCertificateEntry(alias);
      }
      if (!hasCertificate) {
        // a PKCS12 store read without its password shows no certificates
        throw invalid(store, "a trust store holding at least one trusted certificate (none readable"
            + (store.password().isEmpty() ? "; if the store has a password, set " + TransferTlsKeys.TRUSTSTORE_PASSWORD.name() : "") + ")");
      }
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trustStore);
      return factory.getTrustManagers();
    } catch (GeneralSecurityException e) {
      throw invalid(store, "a usable trust store (" + e + ")");
    }
  }

  private static KeyStore read(Store store, String passwordKey) {
    try (InputStream in = Files.newInputStream(store.path())) {
      KeyStore keyStore = KeyStore.getInstance(store.type().configName());
      keyStore.load(in, store.password().map(secret -> secret.reveal().toCharArray()).orElse(null));
      return keyStore;
    } catch (IOException | GeneralSecurityException e) {
      throw invalid(store, "a readable " + store.type().configName() + " store with the password of " + passwordKey + " (" + e + ")");
    }
  }

  private static InvalidConfigException invalid(Store store, String allowed) {
    return new InvalidConfigException(store.pathKey(), store.path().toString(), allowed);
  }
}
