package io.rubix.core.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.InvalidConfigException;
import io.rubix.core.peer.TransferTlsConfig.ClientAuth;
import io.rubix.core.peer.TransferTlsConfig.StoreType;
import io.rubix.testing.TestCertificates;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rubix.network.transfer.tls.* keys: defaults, every wrong value named with its key and what is allowed, stores read once. */
class TransferTlsConfigTest {
  @TempDir
  static Path dir;
  private static Path keyStore;
  private static Path trustStore;

  @BeforeAll
  static void certificates() throws Exception {
    TestCertificates.Authority authority = new TestCertificates(dir).authority("test-ca");
    keyStore = authority.keyStore("node", "ip:127.0.0.1");
    trustStore = authority.trustStore();
  }

  private static Configuration conf(String... keysAndValues) {
    Configuration conf = new Configuration(false);
    for (int i = 0; i < keysAndValues.length; i += 2) {
      conf.set(keysAndValues[i], keysAndValues[i + 1]);
    }
    return conf;
  }

  private static Configuration tls(String... keysAndValues) {
    Configuration conf = conf(keysAndValues);
    conf.set("rubix.network.transfer.tls.enabled", "true");
    return conf;
  }

  @Test
  void offByDefault() {
    assertThat(TransferTlsConfig.from(conf())).isEqualTo(TransferTlsConfig.DISABLED);
    assertThat(PeerConfig.from(conf()).tls().enabled()).isFalse();
  }

  @Test
  void storesAreParsedWithTheirTypeAndPasswordsNeverShow() {
    TransferTlsConfig config = TransferTlsConfig.from(tls(
        "rubix.network.transfer.tls.keystore.path", keyStore.toString(),
        "rubix.network.transfer.tls.keystore.password", TestCertificates.PASSWORD,
        "rubix.network.transfer.tls.truststore.path", trustStore.toString(),
        "rubix.network.transfer.tls.truststore.password", TestCertificates.PASSWORD,
        "rubix.network.transfer.tls.truststore.type", "pkcs12",
        "rubix.network.transfer.tls.client.auth", "REQUIRED"));
    assertThat(config.clientAuth()).isEqualTo(ClientAuth.REQUIRED);
    assertThat(config.keyStore().orElseThrow().type()).isEqualTo(StoreType.PKCS12);
    assertThat(config.trustStore().orElseThrow().password()).isPresent();
    assertThat(config.toString()).doesNotContain(TestCertificates.PASSWORD);
    assertThat(TransferTls.owner(config)).isNotNull();
    assertThat(TransferTls.reader(config)).isNotNull();
  }

  @Test
  void wrongValuesNameTheKeyAndWhatIsAllowed() {
    assertThatThrownBy(() -> TransferTlsConfig.from(tls("rubix.network.transfer.tls.client.auth", "optional")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("rubix.network.transfer.tls.client.auth").hasMessageContaining("[none, required]");
    assertThatThrownBy(() -> TransferTlsConfig.from(tls("rubix.network.transfer.tls.keystore.path", keyStore.toString(),
        "rubix.network.transfer.tls.keystore.type", "PEM")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("rubix.network.transfer.tls.keystore.type").hasMessageContaining("[PKCS12, JKS]");
    assertThatThrownBy(() -> TransferTlsConfig.from(conf("rubix.network.transfer.tls.enabled", "yes")))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.enabled");
    assertThatThrownBy(() -> TransferTlsConfig.from(tls("rubix.network.transfer.tls.truststore.path", "conf/trust.p12")))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.truststore.path").hasMessageContaining("absolute");
    assertThatThrownBy(() -> TransferTlsConfig.from(tls("rubix.network.transfer.tls.keystore.password", "secret-value")))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.keystore.path")
        .hasMessageNotContaining("secret-value");
    // a wrong value is wrong with TLS off too
    assertThatThrownBy(() -> TransferTlsConfig.from(conf("rubix.network.transfer.tls.client.auth", "want")))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.client.auth");
  }

  @Test
  void mutualTlsNeedsBothStoresAndAnOwnerNeedsAKey() {
    assertThatThrownBy(() -> TransferTlsConfig.from(tls("rubix.network.transfer.tls.client.auth", "required",
        "rubix.network.transfer.tls.keystore.path", keyStore.toString())))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.truststore.path")
        .hasMessageContaining("client.auth=required");
    assertThatThrownBy(() -> TransferTlsConfig.from(tls("rubix.network.transfer.tls.client.auth", "required",
        "rubix.network.transfer.tls.truststore.path", trustStore.toString())))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.keystore.path");
    TransferTlsConfig readerOnly = TransferTlsConfig.from(tls("rubix.network.transfer.tls.truststore.path", trustStore.toString(),
        "rubix.network.transfer.tls.truststore.password", TestCertificates.PASSWORD));
    assertThat(TransferTls.reader(readerOnly)).isNotNull();
    assertThatThrownBy(() -> TransferTls.owner(readerOnly))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.keystore.path");
  }

  @Test
  void unreadableStoresFailWhenLoadedNamingTheirKeyNotThePassword() {
    TransferTlsConfig wrongPassword = TransferTlsConfig.from(tls("rubix.network.transfer.tls.keystore.path", keyStore.toString(),
        "rubix.network.transfer.tls.keystore.password", "wrong-password"));
    assertThatThrownBy(() -> TransferTls.owner(wrongPassword))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.keystore.path")
        .hasMessageContaining(keyStore.toString()).hasMessageNotContaining("wrong-password");
    TransferTlsConfig missing = TransferTlsConfig.from(tls("rubix.network.transfer.tls.truststore.path", dir.resolve("nothing.p12").toString()));
    assertThatThrownBy(() -> TransferTls.reader(missing))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.truststore.path");
    // keytool's PKCS12 stores protect their certificates with the store's password: without it a trust store looks empty
    TransferTlsConfig noPassword = TransferTlsConfig.from(tls("rubix.network.transfer.tls.truststore.path", trustStore.toString()));
    assertThatThrownBy(() -> TransferTls.reader(noPassword))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.network.transfer.tls.truststore.path")
        .hasMessageContaining("set rubix.network.transfer.tls.truststore.password");
    // a trust store is no key store: it holds no private key
    TransferTlsConfig noKey = TransferTlsConfig.from(tls("rubix.network.transfer.tls.keystore.path", trustStore.toString(),
        "rubix.network.transfer.tls.keystore.password", TestCertificates.PASSWORD));
    assertThatThrownBy(() -> TransferTls.owner(noKey))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("private key");
  }
}
