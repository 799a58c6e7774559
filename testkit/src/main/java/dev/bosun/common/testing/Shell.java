package dev.bosun.common.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a short bash command line as root-level machine set-up (ip, iptables, ctr) and returns its
 * output.
 */
final class Shell {

  private Shell() {}

  /** Runs {@code command} with bash; fails with its output when it exits non-zero or hangs. */
  static String run(String command) {
    try {
      Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
      CompletableFuture<String> out =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      if (!p.waitFor(300, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("timed out after 300 s: " + command);
      }
      String output = out.join();
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            "exit " + p.exitValue() + " from `" + command + "`: " + output.strip());
      }
      return output;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + command, e);
    }
  }

  /** Single-quotes a word for bash. */
  static String quote(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
