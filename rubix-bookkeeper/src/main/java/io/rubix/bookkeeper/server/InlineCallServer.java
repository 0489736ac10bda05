package io.rubix.bookkeeper.server;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.apache.thrift.server.TThreadedSelectorServer;

/**
 * A {@link TThreadedSelectorServer} that runs a few cheap calls on the selector thread that read them
 * instead of handing them to a worker thread.
 *
 * <p>Design: a call handed to a worker costs two thread wake-ups (selector to worker, worker back to
 * the selector, which writes the answer); on a loaded two-core node those cost more than a status
 * call itself (measured in benchmarks/README.md: p50 76 us with workers against 22 us inline, one
 * client thread). Calls named in {@code inlineCalls} must never wait for other clients (no
 * {@code awaitInFlight}) and do no file I/O of their own: they only hold the metadata lock briefly.
 * Everything else, including any frame whose call name cannot be read, still goes to the workers.
 * Which call a frame holds is read by {@link FrameDeadlineServerSocket} as the frame arrives.
 */
public final class InlineCallServer extends TThreadedSelectorServer {
  private final FrameDeadlineServerSocket socket;
  private final Set<String> inlineCalls;

  public InlineCallServer(Args args, FrameDeadlineServerSocket socket, Set<String> inlineCalls) {
    super(args);
    this.socket = requireNonNull(socket, "socket is null");
    this.inlineCalls = Set.copyOf(inlineCalls);
  }

  @Override
  protected boolean requestInvoke(FrameBuffer frameBuffer) {
    String call = socket.takeCompletedCall();
    if (call != null && inlineCalls.contains(call)) {
      getRunnable(frameBuffer).run();
      return true;
    }
    return super.requestInvoke(frameBuffer);
  }
}
