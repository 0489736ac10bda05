package io.rubix.bookkeeper.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.hadoop.fs.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code rubix evict PATH...}: drops every cached version of the given objects. */
@Command(name = "evict", mixinStandardHelpOptions = true,
    description = "Drops every cached version of each PATH from this node's cache (readers fetch it again from the source).")
final class EvictCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;
  @Mixin
  DaemonOptions daemonOptions;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Fully qualified object path as readers open it, e.g. s3a://bucket/dir/part-0.orc.")
  List<String> paths;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (DaemonOptions.Daemon daemon = daemonOptions.connect()) {
      for (String path : paths) {
        String qualified = new Path(path).toString();
        int dropped = daemon.client().invalidatePath(qualified);
        out.println(dropped == 0 ? "nothing cached for " + qualified : "evicted " + dropped + " cached version" + (dropped == 1 ? "" : "s")
            + " of " + qualified);
      }
    }
    return 0;
  }
}
