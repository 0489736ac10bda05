package io.rubix.bookkeeper.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code rubix stats}: the daemon's counters, one per line or as one JSON object. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = "Prints the BookKeeper's counters and cache use: 'name value' lines (the names of its Prometheus endpoint), or JSON.")
final class StatsCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;
  @Mixin
  DaemonOptions daemonOptions;

  @Option(names = "--json", description = "One JSON object: node, block size, uptime, cache use per disk, counters, per-table counters (tables, otherTables), the working-set estimate (workingSet), and top files with --top.")
  boolean json;

  @Option(names = "--top", paramLabel = "N", defaultValue = "0", description = "With --json, also list the N largest cached files. Default: ${DEFAULT-VALUE}.")
  int top;

  @Override
  public Integer call() throws Exception {
    DaemonSnapshot snapshot = daemonOptions.snapshot(top, json);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(new ObjectMapper().writeValueAsString(snapshot.toMap()));
    } else {
      snapshot.counters().forEach((name, value) -> out.println(name + " " + value));
    }
    return 0;
  }
}
