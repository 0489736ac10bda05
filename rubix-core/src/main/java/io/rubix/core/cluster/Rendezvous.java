package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.cluster.ClusterNode;
import java.util.List;

/**
 * Rendezvous (highest random weight) hashing of keys over a fixed list of nodes: the owner of a key
 * is the node with the highest {@code weight(key, node)}, the next preferred hosts the next highest.
 * Adding a node moves to it only the keys it now wins (about 1/n of them); removing one moves only
 * its own keys, each to its second choice. Nothing else moves.
 *
 * <p>A key is a (path, split index) pair hashed to 64 bits: FNV-1a over the path's chars, then the
 * split index is added with a golden-ratio stride and the result goes through the SplitMix64
 * finalizer. A weight is the finalizer of the key hash xor the node's (finalized) id hash. Lookup
 * cost is one finalizer per node. Immutable and thread-safe.
 */
public final class Rendezvous {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;
  private static final long GOLDEN = 0x9e3779b97f4a7c15L;

  private final ClusterNode[] nodes;
  private final long[] nodeHashes;

  public Rendezvous(List<ClusterNode> nodes) {
    requireNonNull(nodes, "nodes is null");
    this.nodes = nodes.toArray(ClusterNode[]::new);
    this.nodeHashes = new long[this.nodes.length];
    for (int i = 0; i < this.nodes.length; i++) {
      nodeHashes[i] = mix64(hash(this.nodes[i].id()) ^ GOLDEN);
    }
  }

  public int size() {
    return nodes.length;
  }

  public ClusterNode node(int index) {
    return nodes[index];
  }

  /** The 64-bit hash of {@code path}; compute it once per path for several splits. */
  public static long pathHash(String path) {
    return mix64(hash(path));
  }

  /** The key of split {@code split} of the path with hash {@code pathHash}. */
  public static long key(long pathHash, long split) {
    return mix64(pathHash + (split + 1) * GOLDEN);
  }

  /** The index of the node that owns {@code key}; the list must not be empty. */
  public int owner(long key) {
    if (nodes.length == 0) {
      throw new IllegalStateException("No nodes to own key " + key);
    }
    int best = 0;
    long bestWeight = mix64(key ^ nodeHashes[0]);
    for (int i = 1; i < nodeHashes.length; i++) {
      long weight = mix64(key ^ nodeHashes[i]);
      if (Long.compareUnsigned(weight, bestWeight) > 0) {
        best = i;
        bestWeight = weight;
      }
    }
    return best;
  }

  /**
   * Fills {@code out} with the indexes of the {@code out.length} (at most the node count) nodes of
   * highest weight for {@code key}, highest first; returns how many it filled.
   */
  public int top(long key, int[] out) {
    int count = Math.min(out.length, nodes.length);
    if (count == 1) {
      out[0] = owner(key);
      return 1;
    }
    long[] weights = new long[count];
    int filled = 0;
    for (int i = 0; i < nodeHashes.length; i++) {
      long weight = mix64(key ^ nodeHashes[i]);
      if (filled == count && Long.compareUnsigned(weight, weights[count - 1]) <= 0) {
        continue;
      }
      int at = filled == count ? count - 1 : filled++;
      while (at > 0 && Long.compareUnsigned(weight, weights[at - 1]) > 0) {
        weights[at] = weights[at - 1];
        out[at] = out[at - 1];
        at--;
      }
      weights[at] = weight;
      out[at] = i;
    }
    return count;
  }

  /** FNV-1a over the UTF-16 chars of {@code s}. */
  static long hash(String s) {
    long h = FNV_OFFSET;
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * FNV_PRIME;
    }
    return h;
  }

  /** The SplitMix64 (Stafford variant 13) finalizer: every input bit affects every output bit. */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
