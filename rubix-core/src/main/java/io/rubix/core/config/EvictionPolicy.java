package io.rubix.core.config;

/** Which cached object versions make room for new blocks when a disk is full ({@code rubix.cache.eviction.policy}). */
public enum EvictionPolicy implements ConfigReader.ConfigEnum {
  /** The least recently used object versions, always. */
  LRU("lru"),
  /**
   * W-TinyLFU as Caffeine builds it: new objects enter a window (in LRU order) whose size a hill
   * climber adapts to the hit ratio; to stay beyond it, an object must have been read more often
   * recently than the least recently used object it would evict, else its blocks are not cached;
   * objects read again are protected from newcomers. A one-pass scan then cycles through the window only.
   */
  TINYLFU("tinylfu");

  private final String configName;

  EvictionPolicy(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
