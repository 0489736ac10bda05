/**
 * Blocks other nodes own: read from those nodes ({@link io.rubix.core.read.peer.PeerBlocks}) or, without peer reads,
 * from the source ({@link io.rubix.core.read.peer.OwnedElsewhere#FROM_SOURCE}), and the source of a node that joined
 * recently ({@link io.rubix.core.read.peer.HandoffSource}). Uses {@link io.rubix.core.read.uncached} for the blocks no
 * owner serves, and {@link io.rubix.core.read.session}.
 */
package io.rubix.core.read.peer;
