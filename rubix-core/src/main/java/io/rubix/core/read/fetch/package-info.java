/**
 * Blocks an {@code acquire} granted to this JVM, fetched from the source, handed to this JVM's readers as they
 * arrive, written and committed: {@link io.rubix.core.read.fetch.SourceFetches}, the sole owner of this JVM's in-flight
 * buffers, and the runs it ends. Uses only {@link io.rubix.core.read.session}.
 */
package io.rubix.core.read.fetch;
