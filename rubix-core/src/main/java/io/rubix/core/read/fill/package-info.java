/**
 * Blocks fetched ahead for nobody's read yet: the status window around a read and a stream's read-ahead
 * ({@link io.rubix.core.read.fill.StatusWindows}), a vectored read's groups, and the fills an owner makes for a peer
 * ({@link io.rubix.core.read.fill.BlockFiller}). Uses {@link io.rubix.core.read.fetch} for the blocks granted,
 * {@link io.rubix.core.read.uncached} for the ones the cache declines, and {@link io.rubix.core.read.session}.
 */
package io.rubix.core.read.fill;
