/**
 * The read path: the stream ({@link io.rubix.core.read.CachingInputStream}) and the planner
 * ({@link io.rubix.core.read.BlockReader}), which splits each read into runs of blocks and hands each run to the part
 * that serves it: cached blocks ({@link io.rubix.core.read.CachedBlocks}) and tails ({@link io.rubix.core.read.TailReads})
 * here, the others in sub-packages: {@link io.rubix.core.read.fetch}, {@link io.rubix.core.read.fill},
 * {@link io.rubix.core.read.peer} and {@link io.rubix.core.read.uncached}, all over the base
 * {@link io.rubix.core.read.session}. Package dependencies point one way: down from here, never back up; among the
 * parts, {@code fill} uses {@code fetch} and {@code uncached}, {@code peer} uses {@code uncached}, and {@code session}
 * uses none of them ({@code jdeps -verbose:package} over the compiled classes, see docs/architecture.md).
 */
package io.rubix.core.read;
