package dev.bosun.common.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one of the repository's {@code hack/install-*.sh} scripts, which install what is missing
 * once and print the folder holding it as their last line (progress goes to stderr).
 */
public final class InstallScript {

  private InstallScript() {}

  /** Runs {@code hack/<script>} with {@code args} and returns the folder it printed last. */
  public static Path run(String script, String... args) {
    Path path = LocalControlPlane.repoRoot().resolve("hack").resolve(script);
    List<String> command = new ArrayList<>(List.of("bash", path.toString()));
    command.addAll(List.of(args));
    try {
      Process p =
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.waitFor() != 0) {
        throw new IllegalStateException(script + " failed (see its output above)");
      }
      String[] lines = out.split("\n");
      return Path.of(lines[lines.length - 1].trim());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + script, e);
    }
  }
}
