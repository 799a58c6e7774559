package dev.bosun.mysql.backup;

import dev.bosun.common.status.HumanMessages;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a dump or load client that exited with an error said, for a person: its name, its exit code
 * and its last line of error output, bounded. A server error while loading is cut to its code and
 * line number, since the server's text quotes the dump's rows (the user's data).
 */
public final class DumpClientFailure {

  /** Longest part of the client's own output that is kept. */
  public static final int MAX_LINE = 200;

  private static final Pattern SERVER_ERROR =
      Pattern.compile("^(ERROR \\d+ \\([0-9A-Z]+\\)(?: at line \\d+)?)");

  private DumpClientFailure() {}

  /** "mariadb-dump exited with 2: mariadb-dump: Got error: 1045: ..." and the like. */
  public static String describe(String command, int exitCode, String stderr) {
    String client = Path.of(command).getFileName().toString();
    String line = lastLine(stderr);
    if (line.isEmpty()) {
      return client + " exited with " + exitCode + " without an error message";
    }
    Matcher m = SERVER_ERROR.matcher(line);
    if (m.find()) {
      return client
          + " exited with "
          + exitCode
          + ": the server refused the dump's statements with "
          + m.group(1);
    }
    return client + " exited with " + exitCode + ": " + HumanMessages.bounded(line, MAX_LINE);
  }

  /** The last non-blank line of {@code text}, stripped; empty when there is none. */
  public static String lastLine(String text) {
    if (text == null) {
      return "";
    }
    String[] lines = text.strip().split("\\R");
    for (int i = lines.length - 1; i >= 0; i--) {
      if (!lines[i].isBlank()) {
        return lines[i].strip();
      }
    }
    return "";
  }
}
