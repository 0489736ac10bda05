package io.rubix.bookkeeper.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code rubix clear}: empties this node's cache. */
@Command(name = "clear", mixinStandardHelpOptions = true,
    description = "Drops everything from this node's cache: all cached object versions and their files. Blocks being fetched are not published.")
final class ClearCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;
  @Mixin
  DaemonOptions daemonOptions;

  @Override
  public Integer call() throws Exception {
    try (DaemonOptions.Daemon daemon = daemonOptions.connect()) {
      int dropped = daemon.client().clear();
      spec.commandLine().getOut().println("cleared " + dropped + " cached object version" + (dropped == 1 ? "" : "s") + " on "
          + daemon.info().getNodeId());
    }
    return 0;
  }
}
