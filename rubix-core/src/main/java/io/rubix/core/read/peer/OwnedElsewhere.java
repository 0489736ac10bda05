package io.rubix.core.read.peer;

import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Span;
import io.rubix.core.read.uncached.SourceReads;
import io.rubix.core.stats.CacheCounter;
import java.io.IOException;

/**
 * How a reader gets the bytes of blocks this node does not cache because another node owns them:
 * from those nodes ({@link PeerBlocks}, with peer reads on), or from the source ({@link #FROM_SOURCE},
 * without). {@link io.rubix.core.read.BlockReader} asks it without knowing which.
 */
public interface OwnedElsewhere {
  /** Without peer reads: every block owned elsewhere is read from the source, uncached. */
  OwnedElsewhere FROM_SOURCE = new OwnedElsewhere() {
    @Override
    public boolean fromOwners() {
      return false;
    }

    @Override
    public void read(ReadSession s, int first, int end, Span span, Unserved unserved) throws IOException {
      unserved.read(s, first, end, span);
    }

    @Override
    public void readAhead(ReadSession s, int firstBlock, int lastBlock) {}

    @Override
    public void readWithoutMetadata(ReadSession s, int first, int end, Span span, SourceReads source) throws IOException {
      source.read(s, span);
    }

    @Override
    public void forget(ReadSession s) {}
  };

  /** How {@link #read} reads a run of blocks no owner served. */
  @FunctionalInterface
  interface Unserved {
    /** Reads {@code span}, the bytes of blocks {@code [first, end)} no owner served. */
    void read(ReadSession s, int first, int end, Span span) throws IOException;
  }

  /** From the source, uncached, through {@code reads}, counted as {@code rubix_non_owner_source_bytes}. */
  static Unserved fromSource(SourceReads reads) {
    return (s, first, end, span) -> {
      int length = span.length();
      reads.read(s, span);
      s.stats.add(CacheCounter.NON_OWNER_SOURCE_BYTES, length);
    };
  }

  /** Whether the blocks come from their owners (then a status that names them missing needs no new answer). */
  boolean fromOwners();

  /**
   * Reads {@code span}, the bytes of blocks {@code [first, end)} this node does not cache, and each run of
   * blocks no owner serves through {@code unserved} (the caller knows whether this node caches them now:
   * a failed transfer takes its owner out of the ring).
   */
  void read(ReadSession s, int first, int end, Span span, Unserved unserved) throws IOException;

  /** After a stream's read of blocks {@code [firstBlock, lastBlock]}: reads ahead the blocks owned elsewhere, when it should. */
  void readAhead(ReadSession s, int firstBlock, int lastBlock);

  /**
   * Reads {@code span}, blocks {@code [first, end)}, when this node's metadata service failed: blocks
   * other nodes own from those nodes where they can, this node's own from {@code source}.
   */
  void readWithoutMetadata(ReadSession s, int first, int end, Span span, SourceReads source) throws IOException;

  /** Forgets what the session received or is receiving from owners (a stream's {@code unbuffer}). */
  void forget(ReadSession s);
}
