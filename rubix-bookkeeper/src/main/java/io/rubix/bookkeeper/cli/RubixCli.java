package io.rubix.bookkeeper.cli;

import static java.util.Objects.requireNonNull;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code rubix} command line tool: talks to this node's BookKeeper daemon ({@code status},
 * {@code stats}, {@code evict}, {@code clear}) and fills its cache ({@code warmup}).
 *
 * <p>Exit codes: 0 success, 1 the operation failed (daemon unreachable, a read failed, blocks that
 * could not be cached), 2 bad arguments (usage is printed on stderr).
 */
@Command(name = "rubix", mixinStandardHelpOptions = true, versionProvider = RubixCli.Version.class,
    synopsisSubcommandLabel = "COMMAND",
    description = "Operates this node's RubiX cache through its BookKeeper daemon.",
    subcommands = {StatusCommand.class, StatsCommand.class, WarmupCommand.class, EvictCommand.class, ClearCommand.class,
        CommandLine.HelpCommand.class},
    footer = {"", "Exit codes: 0 success, 1 failure, 2 bad arguments."})
public final class RubixCli implements Runnable {
  /** Exit code of a command that ran and failed. */
  static final int FAILED = 1;

  private final UnaryOperator<String> environment;

  @Spec
  CommandSpec spec;

  /** @param environment environment variables ({@code System::getenv} outside tests) */
  public RubixCli(UnaryOperator<String> environment) {
    this.environment = requireNonNull(environment, "environment is null");
  }

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    System.exit(new RubixCli(System::getenv).execute(args, out, err));
  }

  /** Runs one command line and returns its exit code; output goes to {@code out}, errors, usage and progress to {@code err}. */
  public int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine commandLine = new CommandLine(this)
        .setOut(out)
        .setErr(err)
        .setParameterExceptionHandler((e, arguments) -> {
          CommandLine command = e.getCommandLine();
          PrintWriter usage = command.getErr();
          usage.println("rubix: " + e.getMessage());
          CommandLine.UnmatchedArgumentException.printSuggestions(e, usage);
          command.usage(usage);
          usage.flush();
          return command.getCommandSpec().exitCodeOnInvalidInput();
        })
        .setExecutionExceptionHandler((e, command, parseResult) -> {
          command.getErr().println("rubix " + command.getCommandName() + ": " + describe(e));
          command.getErr().flush();
          return FAILED;
        });
    int code = commandLine.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  String environment(String name) {
    return environment.apply(name);
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing command");
  }

  private static String describe(Throwable e) {
    StringBuilder message = new StringBuilder(e.getMessage() == null ? e.toString() : e.getMessage());
    for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
      if (cause.getMessage() != null && !message.toString().contains(cause.getMessage())) {
        message.append(": ").append(cause.getMessage());
      }
    }
    return message.toString();
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = RubixCli.class.getPackage().getImplementationVersion();
      return new String[] {"rubix " + (version == null ? "(development build)" : version)};
    }
  }
}
