/**
 * The base of the read path, which every part of it may use and which uses none of them: the per-stream
 * {@link io.rubix.core.read.session.ReadSession} (its owner table names which part writes which field), the
 * object's {@link io.rubix.core.read.session.Source}, the byte and block arithmetic ({@link io.rubix.core.read.session.Span},
 * {@link io.rubix.core.read.session.BlockRuns}), admission and the failure policy, and the per-stream state more than one
 * part writes: the bytes a stream holds ({@link io.rubix.core.read.session.HeldBytes}, within
 * {@link io.rubix.core.read.session.UncachedMemory}) and bytes as they arrive ({@link io.rubix.core.read.session.ArrivingBytes}).
 */
package io.rubix.core.read.session;
