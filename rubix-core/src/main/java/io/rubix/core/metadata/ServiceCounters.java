package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The metadata service's counters, read together at one moment ({@link InProcessMetadataService#counters}).
 *
 * @param recoveredBlocks blocks recovered from the journal at startup
 * @param recoveryProblems journal entries recovery dropped (invalid, orphaned) or could not read, at startup
 * @param refusedBlocks blocks whose commit was refused because their bytes on disk did not match the CRC32C their writer claimed
 * @param admissionRejections blocks whose grant the eviction policy refused ({@code tinylfu}: their object was read less
 *     often recently than the one they would have evicted); their readers read the source
 * @param evictionWindowShare {@code tinylfu}: the share of each cache directory's cap its admission window holds now, as
 *     the hill climber sized it; 0 under {@code lru}
 * @param expirations object versions dropped because nobody read them for {@code rubix.cache.expire.after.idle}, at
 *     start and since
 * @param ruleExcludedRequests requests for blocks (acquires) refused because a path rule excludes their object
 * @param ruleUsage per path rule with a quota, in configuration order: its quota and what its objects are charged now
 */
public record ServiceCounters(long recoveredBlocks, long recoveryProblems, long refusedBlocks, long admissionRejections,
    double evictionWindowShare, long expirations, long ruleExcludedRequests, List<RuleUsage> ruleUsage) {
  public ServiceCounters {
    ruleUsage = List.copyOf(requireNonNull(ruleUsage, "ruleUsage is null"));
  }
}
