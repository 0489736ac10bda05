package io.rubix.core.metadata.eviction;

/**
 * Where an object sits in its disk's eviction order. Under LRU every object is in {@link #PROBATION},
 * which is then the disk's one LRU list; under TinyLFU an object moves window → probation → protected
 * as described in {@link Segments}.
 */
public enum Segment {
  /** TinyLFU: the newest objects, admitted without a frequency comparison. */
  WINDOW,
  /** Past the window and not read again since: the first to be compared with newcomers and evicted. */
  PROBATION,
  /** TinyLFU: read again while in probation; evicted only when probation is empty. */
  PROTECTED
}
