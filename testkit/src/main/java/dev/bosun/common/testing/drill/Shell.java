package dev.bosun.common.testing.drill;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** Runs the {@code ip}, {@code iptables} and {@code sh} commands a lab is built with. */
final class Shell {

  private static final long TIMEOUT_SECONDS = 60;

  /** Threads that drain commands' output (idle ones end after a minute). */
  private static final ExecutorService READERS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "shell-output");
            t.setDaemon(true);
            return t;
          });

  private Shell() {}

  /** Runs {@code command}; its stdout, or an exception naming the command and its stderr. */
  static String run(String... command) {
    Result r = exec(List.of(command));
    if (r.exit() != 0) {
      throw new IllegalStateException(
          String.join(" ", command) + " exited " + r.exit() + ": " + r.stderr().strip());
    }
    return r.stdout();
  }

  /** A finished command: exit status and output. */
  record Result(int exit, String stdout, String stderr) {}

  static Result exec(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE).start();
      p.getOutputStream().close();
      // Both streams are read on their own threads, so a command that hangs is still timed out.
      CompletableFuture<String> out =
          CompletableFuture.supplyAsync(() -> read(p.getInputStream()), READERS);
      CompletableFuture<String> err =
          CompletableFuture.supplyAsync(() -> read(p.getErrorStream()), READERS);
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish in time");
      }
      return new Result(p.exitValue(), out.join(), err.join());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
    }
  }

  private static String read(InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
