package io.rubix.spi.config;

import java.util.ArrayList;
import java.util.List;

/** Every configuration key RubiX reads, in documentation order. */
public final class RubixKeys {
  private RubixKeys() {}

  public static List<Class<?>> keyClasses() {
    return List.of(CacheKeys.class, InsightKeys.class, BookKeeperKeys.class, TransferTlsKeys.class, PeerFetchKeys.class, ClusterKeys.class,
        IcebergKeys.class);
  }

  public static List<ConfigKey> all() {
    List<ConfigKey> keys = new ArrayList<>(CacheKeys.all());
    keys.addAll(InsightKeys.all());
    keys.addAll(BookKeeperKeys.all());
    keys.addAll(TransferTlsKeys.all());
    keys.addAll(PeerFetchKeys.all());
    keys.addAll(ClusterKeys.all());
    keys.addAll(IcebergKeys.all());
    return List.copyOf(keys);
  }
}
