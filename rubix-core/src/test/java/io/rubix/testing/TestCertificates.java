package io.rubix.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Key and trust stores for TLS tests, made in a directory with the JDK's own {@code keytool}, the way
 * docs/operations.md tells operators to: a certificate authority, a trust store holding its
 * certificate, and node key stores whose certificates it signed for given subject alternative names.
 * Every store is PKCS12 with the password {@link #PASSWORD}.
 */
public final class TestCertificates {
  public static final String PASSWORD = "test-store-pass";

  private final Path dir;

  /** Stores made in {@code dir}. */
  public TestCertificates(Path dir) {
    this.dir = requireNonNull(dir, "dir is null");
  }

  /** A new certificate authority {@code name}: its key store and its certificate, in the directory. */
  public Authority authority(String name) throws IOException, InterruptedException {
    Path keyStore = dir.resolve(name + ".p12");
    Path certificate = dir.resolve(name + ".crt");
    keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name, "-ext", "bc:c",
        "-validity", "2", "-keystore", keyStore.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
    keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", keyStore.toString(), "-storepass", PASSWORD, "-file", certificate.toString());
    return new Authority(name, keyStore, certificate);
  }

  /** A key store {@code name} with a new key and a self-signed certificate for {@code san} ({@code ip:127.0.0.1}): trusted by no one. */
  public Path selfSigned(String name, String san) throws IOException, InterruptedException {
    Path keyStore = dir.resolve(name + ".p12");
    keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name, "-ext", "SAN=" + san,
        "-validity", "2", "-keystore", keyStore.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
    return keyStore;
  }

  /** A certificate authority: signs node certificates, and a trust store of its certificate vouches for them. */
  public final class Authority {
    private final String name;
    private final Path keyStore;
    private final Path certificate;

    private Authority(String name, Path keyStore, Path certificate) {
      this.name = name;
      this.keyStore = keyStore;
      this.certificate = certificate;
    }

    /** A trust store holding only this authority's certificate. */
    public Path trustStore() throws IOException, InterruptedException {
      Path trustStore = dir.resolve(name + "-truststore.p12");
      if (!Files.exists(trustStore)) {
        keytool("-importcert", "-noprompt", "-alias", name, "-file", certificate.toString(), "-keystore", trustStore.toString(),
            "-storetype", "PKCS12", "-storepass", PASSWORD);
      }
      return trustStore;
    }

    /**
     * A key store {@code node} with a new key and a certificate this authority signed for {@code sans}
     * ({@code ip:127.0.0.1,dns:node1.example.com}), usable to serve and to authenticate as a client.
     */
    public Path keyStore(String node, String sans) throws IOException, InterruptedException {
      Path store = dir.resolve(node + ".p12");
      Path request = dir.resolve(node + ".csr");
      Path signed = dir.resolve(node + ".crt");
      keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + node, "-validity", "2",
          "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
      keytool("-certreq", "-alias", "node", "-keystore", store.toString(), "-storepass", PASSWORD, "-file", request.toString());
      keytool("-gencert", "-alias", "ca", "-keystore", keyStore.toString(), "-storepass", PASSWORD, "-infile", request.toString(),
          "-outfile", signed.toString(), "-rfc", "-validity", "2", "-ext", "SAN=" + sans, "-ext", "KU=digitalSignature",
          "-ext", "EKU=serverAuth,clientAuth");
      keytool("-importcert", "-noprompt", "-alias", "ca", "-file", certificate.toString(), "-keystore", store.toString(), "-storepass", PASSWORD);
      keytool("-importcert", "-alias", "node", "-file", signed.toString(), "-keystore", store.toString(), "-storepass", PASSWORD);
      return store;
    }
  }

  private void keytool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Path log = Files.createTempFile(dir, "keytool", ".log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("keytool did not finish in 120 s: " + command);
    }
    if (process.exitValue() != 0) {
      throw new IOException("keytool failed (" + process.exitValue() + "): " + command + ": " + Files.readString(log));
    }
  }
}
