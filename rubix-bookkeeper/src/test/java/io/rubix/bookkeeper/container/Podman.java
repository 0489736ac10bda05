package io.rubix.bookkeeper.container;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The podman command line, with the options this kind of machine needs (system properties
 * {@code rubix.it.podman}, {@code rubix.it.podman.options}; see docs/deploy.md).
 */
final class Podman {
  /** runc instead of crun (crun refuses hybrid cgroups here), host network, ulimits the kernel lets runc set. */
  static final String DEFAULT_OPTIONS = "--runtime /usr/sbin/runc --network=host --ulimit nofile=16384:16384 --ulimit nproc=16384:16384";

  private final String executable;
  private final List<String> options;
  private final Path work;

  Podman(Path work) {
    this.work = requireNonNull(work, "work is null");
    this.executable = System.getProperty("rubix.it.podman", "podman");
    this.options = Arrays.asList(System.getProperty("rubix.it.podman.options", DEFAULT_OPTIONS).trim().split("\\s+"));
  }

  record Result(int exitCode, String out, String err) {
    Result requireSuccess(List<String> command) {
      if (exitCode != 0) {
        throw new IllegalStateException("podman " + command + " exited with " + exitCode + ": " + err + out);
      }
      return this;
    }
  }

  /** Whether podman answers {@code podman version}. */
  boolean available() {
    try {
      return run(Duration.ofSeconds(30), List.of("version")).exitCode() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  boolean imageExists(String image) throws IOException {
    return run(Duration.ofSeconds(30), List.of("image", "exists", image)).exitCode() == 0;
  }

  /** {@code podman build} with the runtime and network options (the ulimits apply to RUN steps). */
  void build(Path context, Path dockerfile, String tag, List<String> buildArgs) throws IOException {
    List<String> command = new ArrayList<>(List.of("build", "--format", "docker"));
    command.addAll(options);
    for (String arg : buildArgs) {
      command.addAll(List.of("--build-arg", arg));
    }
    command.addAll(List.of("-f", dockerfile.toString(), "-t", tag, context.toString()));
    run(Duration.ofMinutes(10), command).requireSuccess(command);
  }

  /** {@code podman run -d} with the runtime, network and ulimit options; returns the container id. */
  String runDetached(String name, List<String> runArgs, String image) throws IOException {
    List<String> command = new ArrayList<>(List.of("run", "-d", "--name", name));
    command.addAll(options);
    command.addAll(runArgs);
    command.add(image);
    return run(Duration.ofMinutes(2), command).requireSuccess(command).out().strip();
  }

  Result exec(Duration timeout, String... args) throws IOException {
    return run(timeout, List.of(args));
  }

  private Result run(Duration timeout, List<String> args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(executable);
    command.addAll(args);
    Path out = Files.createTempFile(work, "podman", ".out");
    Path err = Files.createTempFile(work, "podman", ".err");
    Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IOException("podman " + args + " did not finish within " + timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted waiting for podman " + args, e);
    }
    Result result = new Result(process.exitValue(), Files.readString(out, UTF_8), Files.readString(err, UTF_8));
    Files.deleteIfExists(out);
    Files.deleteIfExists(err);
    return result;
  }
}
