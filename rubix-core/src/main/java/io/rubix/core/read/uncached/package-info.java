/**
 * Bytes the cache declines, read from the source into the stream's memory as a plain stream with read-ahead would
 * read them ({@link io.rubix.core.read.uncached.SourceReads}): the fallback of every other part. Uses only
 * {@link io.rubix.core.read.session}.
 */
package io.rubix.core.read.uncached;
