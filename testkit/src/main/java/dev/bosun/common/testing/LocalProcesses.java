package dev.bosun.common.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/** What the local control plane and the local node do alike with their processes and logs. */
final class LocalProcesses {

  private LocalProcesses() {}

  /**
   * Waits until {@code ready} holds; fails at once when one of {@code processes} died (waiting on
   * would only hide the cause, which is in that process's log).
   */
  static void await(
      String role,
      List<LocalProcess> processes,
      String what,
      Duration timeout,
      Duration poll,
      BooleanSupplier ready) {
    Awaitility.await(what)
        .atMost(timeout)
        .pollInterval(poll)
        .ignoreExceptions()
        .failFast(
            "a " + role + " process died while waiting for " + what,
            () -> processes.stream().anyMatch(p -> !p.isAlive()))
        .until(ready::getAsBoolean);
  }

  /** Prints the last {@code lines} lines of every log in {@code logs}, file by file. */
  static void printTails(String role, Path logs, int lines, Consumer<String> out) {
    if (!Files.isDirectory(logs)) {
      return;
    }
    try (Stream<Path> files = Files.list(logs)) {
      for (Path log : files.sorted().toList()) {
        List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
        out.accept("----- " + log + " (last " + Math.min(lines, all.size()) + " lines) -----");
        all.subList(Math.max(0, all.size() - lines), all.size()).forEach(out);
      }
    } catch (IOException e) {
      out.accept("(no " + role + " logs: " + e.getMessage() + ")");
    }
  }
}
