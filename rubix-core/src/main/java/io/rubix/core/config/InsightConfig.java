package io.rubix.core.config;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.config.InsightKeys;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;

/**
 * What the metadata service reports per table and how it estimates the working set: see
 * {@link InsightKeys}. Bounds sit beside each key's read in {@link #from(ConfigReader)}.
 *
 * @param prefixDepth path components that name a table ({@code rubix.cache.stats.prefix.depth})
 * @param prefixEntries most tables with their own counters ({@code rubix.cache.stats.prefix.entries})
 * @param shadowWindow window of the working-set estimate ({@code rubix.cache.shadow.window})
 * @param shadowSampleBlocks sampled keys the 2x shadow cache holds ({@code rubix.cache.shadow.sample.blocks})
 */
public record InsightConfig(int prefixDepth, int prefixEntries, Duration shadowWindow, int shadowSampleBlocks) {
  public static final int MAX_PREFIX_DEPTH = 64;
  public static final int MAX_PREFIX_ENTRIES = 1000;
  public static final Duration MIN_SHADOW_WINDOW = Duration.ofSeconds(4);
  public static final int MIN_SHADOW_SAMPLE_BLOCKS = 1024;
  public static final int MAX_SHADOW_SAMPLE_BLOCKS = 1 << 22;

  public InsightConfig {
    requireNonNull(shadowWindow, "shadowWindow is null");
    if (prefixDepth < 1 || prefixDepth > MAX_PREFIX_DEPTH) {
      throw new InvalidConfigException(InsightKeys.PREFIX_DEPTH, Integer.toString(prefixDepth), "1 to " + MAX_PREFIX_DEPTH);
    }
    if (prefixEntries < 1 || prefixEntries > MAX_PREFIX_ENTRIES) {
      throw new InvalidConfigException(InsightKeys.PREFIX_ENTRIES, Integer.toString(prefixEntries), "1 to " + MAX_PREFIX_ENTRIES);
    }
    if (shadowWindow.compareTo(MIN_SHADOW_WINDOW) < 0) {
      throw new InvalidConfigException(InsightKeys.SHADOW_WINDOW, shadowWindow.toString(), "at least " + MIN_SHADOW_WINDOW.toSeconds() + "s");
    }
    if (shadowSampleBlocks < MIN_SHADOW_SAMPLE_BLOCKS || shadowSampleBlocks > MAX_SHADOW_SAMPLE_BLOCKS) {
      throw new InvalidConfigException(InsightKeys.SHADOW_SAMPLE_BLOCKS, Integer.toString(shadowSampleBlocks),
          MIN_SHADOW_SAMPLE_BLOCKS + " to " + MAX_SHADOW_SAMPLE_BLOCKS);
    }
  }

  /** The defaults of every key. */
  public static InsightConfig defaults() {
    return from(new Configuration(false));
  }

  public static InsightConfig from(Configuration conf) {
    return from(new ConfigReader(conf));
  }

  static InsightConfig from(ConfigReader reader) {
    return new InsightConfig(
        reader.getInt(InsightKeys.PREFIX_DEPTH, 1, MAX_PREFIX_DEPTH),
        reader.getInt(InsightKeys.PREFIX_ENTRIES, 1, MAX_PREFIX_ENTRIES),
        reader.getDuration(InsightKeys.SHADOW_WINDOW, MIN_SHADOW_WINDOW),
        reader.getInt(InsightKeys.SHADOW_SAMPLE_BLOCKS, MIN_SHADOW_SAMPLE_BLOCKS, MAX_SHADOW_SAMPLE_BLOCKS));
  }
}
