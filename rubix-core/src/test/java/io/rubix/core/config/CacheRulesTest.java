package io.rubix.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Path globs, rule order and the validation of {@code rubix.cache.rules} at start. */
class CacheRulesTest {
  @TempDir
  Path dir;

  private Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", dir.toString());
    return conf;
  }

  private static boolean matches(String glob, String path) {
    return PathGlob.parse("k", glob).matches(path, PathGlob.pathOnly(path));
  }

  @Test
  void aStarMatchesWithinOneSegmentOnly() {
    assertThat(matches("s3a://lake/warehouse/dim_*/part-0", "s3a://lake/warehouse/dim_date/part-0")).isTrue();
    assertThat(matches("s3a://lake/warehouse/dim_*/part-0", "s3a://lake/warehouse/dim_/part-0")).isTrue();
    assertThat(matches("s3a://lake/warehouse/dim_*/part-0", "s3a://lake/warehouse/dim_a/b/part-0")).isFalse();
    assertThat(matches("s3a://lake/warehouse/dim_*/part-0", "s3a://lake/warehouse/fact/part-0")).isFalse();
    assertThat(matches("s3a://lake/*.orc", "s3a://lake/a.orc")).isTrue();
    assertThat(matches("s3a://lake/*.orc", "s3a://lake/x/a.orc")).isFalse();
    assertThat(matches("s3a://lake/part-?", "s3a://lake/part-7")).isTrue();
    assertThat(matches("s3a://lake/part-?", "s3a://lake/part-17")).isFalse();
  }

  @Test
  void aDoubleStarMatchesAnyDepthIncludingNone() {
    assertThat(matches("s3a://lake/warehouse/dim_*/**", "s3a://lake/warehouse/dim_date/part-0.orc")).isTrue();
    assertThat(matches("s3a://lake/warehouse/dim_*/**", "s3a://lake/warehouse/dim_date/dt=1/x/part-0.orc")).isTrue();
    assertThat(matches("s3a://lake/warehouse/dim_*/**", "s3a://lake/warehouse/fact_sales/part-0.orc")).isFalse();
    assertThat(matches("s3a://lake/**/part-0", "s3a://lake/part-0")).isTrue();
    assertThat(matches("s3a://lake/**/part-0", "s3a://lake/a/b/c/part-0")).isTrue();
    assertThat(matches("s3a://lake/**/part-0", "s3a://lake/a/b/c/part-01")).isFalse();
  }

  @Test
  void aTrailingSlashIsAPrefixAndRegexCharactersAreLiteral() {
    assertThat(matches("s3a://lake/tmp/", "s3a://lake/tmp/a/b")).isTrue();
    assertThat(matches("s3a://lake/tmp/", "s3a://lake/tmpx/a")).isFalse();
    assertThat(matches("s3a://lake/a.b+(c)/", "s3a://lake/a.b+(c)/x")).isTrue();
    assertThat(matches("s3a://lake/a.b+(c)/", "s3a://lake/aXb+(c)/x")).isFalse();
  }

  @Test
  void aPatternWithoutSchemeMatchesThePathInAnyBucketAndScheme() {
    assertThat(matches("/warehouse/tmp/**", "s3a://any-bucket/warehouse/tmp/x")).isTrue();
    assertThat(matches("/warehouse/tmp/**", "file:/warehouse/tmp/x")).isTrue();
    assertThat(matches("/warehouse/tmp/**", "hdfs://nn:8020/warehouse/tmp/x")).isTrue();
    assertThat(matches("/warehouse/tmp/**", "s3a://warehouse/tmp/x")).as("the bucket is not part of the path").isFalse();
    assertThat(matches("s3a://lake/x", "s3://lake/x")).as("a scheme is matched exactly").isFalse();
  }

  @Test
  void theFirstMatchingRuleWinsAndUnmatchedPathsFollowTheDefault() {
    Configuration conf = conf();
    conf.set("rubix.cache.rules", "keep,tmp,dims");
    conf.set("rubix.cache.rule.keep.paths", "s3a://lake/tmp/keep/**");
    conf.set("rubix.cache.rule.tmp.paths", "s3a://lake/tmp/**, /scratch/");
    conf.set("rubix.cache.rule.tmp.action", "EXCLUDE");
    conf.set("rubix.cache.rule.dims.paths", "s3a://lake/warehouse/dim_*/**");
    conf.set("rubix.cache.rule.dims.quota", "20g");
    CacheRules rules = CacheConfig.from(conf).rules();

    assertThat(rules.match("s3a://lake/tmp/keep/a").orElseThrow().name()).isEqualTo("keep");
    assertThat(rules.caches("s3a://lake/tmp/keep/a")).isTrue();
    assertThat(rules.match("s3a://lake/tmp/other/a").orElseThrow().name()).isEqualTo("tmp");
    assertThat(rules.caches("s3a://lake/tmp/other/a")).isFalse();
    assertThat(rules.caches("s3a://other/scratch/a")).isFalse();
    assertThat(rules.match("s3a://lake/warehouse/dim_item/p").orElseThrow().quota()).contains(new RuleQuota(20L << 30, 0));
    assertThat(rules.match("s3a://lake/warehouse/fact/p")).isEmpty();
    assertThat(rules.caches("s3a://lake/warehouse/fact/p")).isTrue();

    conf.set("rubix.cache.rules.default", "exclude");
    CacheRules excludeByDefault = CacheConfig.from(conf).rules();
    assertThat(excludeByDefault.caches("s3a://lake/warehouse/fact/p")).isFalse();
    assertThat(excludeByDefault.caches("s3a://lake/warehouse/dim_item/p")).isTrue();
  }

  @Test
  void noRulesCacheEverything() {
    CacheRules rules = CacheConfig.from(conf()).rules();
    assertThat(rules).isEqualTo(CacheRules.NONE);
    assertThat(rules.caches("s3a://lake/anything")).isTrue();
  }

  @Test
  void aPercentQuotaIsAShareOfTheNodesCap() {
    Configuration conf = conf();
    conf.set("rubix.cache.rules", "dims");
    conf.set("rubix.cache.rule.dims.paths", "/dims/");
    conf.set("rubix.cache.rule.dims.quota", "15%");
    RuleQuota quota = CacheConfig.from(conf).rules().rules().get(0).quota().orElseThrow();
    assertThat(quota.bytesOf(1000L << 20)).isEqualTo(150L << 20);
    assertThat(new RuleQuota(4096, 0).bytesOf(1L << 40)).isEqualTo(4096);
  }

  @Test
  void badRulesNameTheKeyTheValueAndWhatIsAllowed() {
    assertInvalid(rule("dims", "s3a://lake/dims/", "sometimes", null), "rubix.cache.rule.dims.action", "'sometimes'", "[include, exclude]");
    assertInvalid(rule("dims", "s3a://lake/[ab]/x", null, null), "rubix.cache.rule.dims.paths", "'s3a://lake/[ab]/x'", "path glob");
    assertInvalid(rule("dims", "s3a://lake/a**/x", null, null), "rubix.cache.rule.dims.paths", "'s3a://lake/a**/x'", "whole path segment");
    assertInvalid(rule("dims", "lake/dims/**", null, null), "rubix.cache.rule.dims.paths", "'lake/dims/**'", "starting with / or a scheme");
    assertInvalid(rule("dims", "/dims/", null, "20x"), "rubix.cache.rule.dims.quota", "'20x'", "percentage");
    assertInvalid(rule("dims", "/dims/", null, "150%"), "rubix.cache.rule.dims.quota", "'150%'", "1% to 100%");
    assertInvalid(rule("dims", "/dims/", null, "0"), "rubix.cache.rule.dims.quota", "'0'", "size in bytes");
    assertInvalid(rule("tmp", "/tmp/", "exclude", "1g"), "rubix.cache.rule.tmp.quota", "'1g'", "no quota on an exclude rule");

    Configuration noPaths = conf();
    noPaths.set("rubix.cache.rules", "dims");
    assertInvalid(noPaths, "rubix.cache.rule.dims.paths", "''", "rule dims is listed in rubix.cache.rules");

    Configuration badName = conf();
    badName.set("rubix.cache.rules", "dims,tmp files");
    assertInvalid(badName, "rubix.cache.rules", "'dims,tmp files'", "'tmp files' is not one");

    Configuration twice = conf();
    twice.set("rubix.cache.rules", "dims,dims");
    twice.set("rubix.cache.rule.dims.paths", "/dims/");
    assertInvalid(twice, "rubix.cache.rules", "'dims,dims'", "listed twice");

    Configuration badDefault = conf();
    badDefault.set("rubix.cache.rules.default", "maybe");
    assertInvalid(badDefault, "rubix.cache.rules.default", "'maybe'", "[include, exclude]");
  }

  private Configuration rule(String name, String paths, String action, String quota) {
    Configuration conf = conf();
    conf.set("rubix.cache.rules", name);
    conf.set("rubix.cache.rule." + name + ".paths", paths);
    if (action != null) {
      conf.set("rubix.cache.rule." + name + ".action", action);
    }
    if (quota != null) {
      conf.set("rubix.cache.rule." + name + ".quota", quota);
    }
    return conf;
  }

  private static void assertInvalid(Configuration conf, String... fragments) {
    assertThatThrownBy(() -> CacheConfig.from(conf)).isInstanceOf(InvalidConfigException.class).hasMessageContainingAll(fragments);
  }
}
