package io.rubix.bookkeeper.server;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Request counters of the BookKeeper's Thrift server. */
public final class ServerCounters {
  final LongAdder statusCalls = new LongAdder();
  final LongAdder acquireCalls = new LongAdder();
  final LongAdder commitCalls = new LongAdder();
  final LongAdder abortCalls = new LongAdder();
  final LongAdder waitCalls = new LongAdder();
  final LongAdder waiting = new LongAdder();
  final LongAdder corruptReports = new LongAdder();
  final LongAdder badRequests = new LongAdder();
  final LongAdder errors = new LongAdder();
  final LongAdder clearCalls = new LongAdder();
  final LongAdder unauthenticated = new LongAdder();

  public Map<String, Long> snapshot() {
    Map<String, Long> values = new LinkedHashMap<>();
    values.put("rubix_bookkeeper_status_calls", statusCalls.sum());
    values.put("rubix_bookkeeper_acquire_calls", acquireCalls.sum());
    values.put("rubix_bookkeeper_commit_calls", commitCalls.sum());
    values.put("rubix_bookkeeper_abort_calls", abortCalls.sum());
    values.put("rubix_bookkeeper_wait_calls", waitCalls.sum());
    values.put("rubix_bookkeeper_leases_waiting", waiting.sum());
    values.put("rubix_bookkeeper_corrupt_block_reports", corruptReports.sum());
    values.put("rubix_bookkeeper_bad_requests", badRequests.sum());
    values.put("rubix_bookkeeper_errors", errors.sum());
    values.put("rubix_bookkeeper_clear_calls", clearCalls.sum());
    values.put("rubix_bookkeeper_unauthenticated_connections", unauthenticated.sum());
    return values;
  }
}
