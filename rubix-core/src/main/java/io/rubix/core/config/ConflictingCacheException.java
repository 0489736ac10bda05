package io.rubix.core.config;

import io.rubix.spi.config.ConfigKey;

/**
 * A cache asked for with settings that differ from those of the cache already open on the same
 * directories (or BookKeeper port) in this JVM: the two cannot share it, and it cannot be opened
 * twice. The message names the key and both values. A caching file system that meets it reads from
 * the source instead of failing.
 */
public final class ConflictingCacheException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * @param key the setting that differs
   * @param here its value in the request
   * @param there its value in the cache already open
   * @param open which cache is already open (e.g. "the cache already open on [/mnt/disk1/rubix]")
   */
  public ConflictingCacheException(ConfigKey key, Object here, Object there, String open) {
    super(key.name() + " is " + here + " here but " + there + " in " + open + "; use the same value or other cache directories");
  }
}
