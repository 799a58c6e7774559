package dev.bosun.mysql.backup;

import java.util.Locale;
import java.util.Set;

/**
 * Finds client commands in a dump, line by line, as the mysql and mariadb clients parse their
 * input: a backslash command ({@code \!}, {@code \.}, {@code \T}...) outside a string or comment
 * (executable {@code /*!...*}{@code /} comments count as code: the clients read commands in them),
 * and a named command ({@code system}, {@code source}, {@code tee}...) as the first word of a line
 * that starts a statement. A dump a tenant can write is hostile input to an operator with
 * cluster-wide rights: the clients run these on the operator's side, so a restore refuses any dump
 * that holds one. Only {@code USE} and {@code DELIMITER} (which the dump tools write) and the
 * sandbox switch {@code \-} (the first line mariadb-dump writes) pass.
 *
 * <p>The scan assumes backslash escapes in strings (the servers' default). It is the second guard:
 * the loading client also runs with {@code --binary-mode} (both clients then read no command but
 * DELIMITER and {@code \C}) and, on MariaDB, {@code --sandbox}.
 */
public final class ClientCommandScanner {

  private static final Set<String> NAMED_COMMANDS =
      Set.of(
          "?",
          "clear",
          "connect",
          "delimiter",
          "edit",
          "ego",
          "exit",
          "go",
          "help",
          "nopager",
          "notee",
          "nowarning",
          "pager",
          "print",
          "prompt",
          "quit",
          "rehash",
          "source",
          "status",
          "system",
          "tee",
          "use",
          "charset",
          "warnings",
          "sandbox",
          "query_attributes",
          "resetconnection",
          "ssl_session_data_print");

  private enum State {
    CODE,
    SINGLE_QUOTE,
    DOUBLE_QUOTE,
    BACKTICK,
    COMMENT
  }

  private State state = State.CODE;
  private boolean statementStart = true;
  private String delimiter = ";";

  /** What {@link #code} returns for a client command: the line is refused. */
  private static final int COMMAND = -1;

  /** What {@link #code} returns when the rest of the line is a comment. */
  private static final int REST_IS_COMMENT = -2;

  /** Whether {@code line} (the next line of the dump) holds a client command. */
  public boolean holdsCommand(String line) {
    if (state == State.CODE && statementStart) {
      Named named = named(line);
      if (named != Named.NONE) {
        // A DELIMITER line is the client's alone: nothing after its word reaches the server.
        return named == Named.REFUSED;
      }
    }
    int i = 0;
    while (i < line.length()) {
      i =
          switch (state) {
            case SINGLE_QUOTE, DOUBLE_QUOTE -> quoted(line, i);
            case BACKTICK -> line.charAt(i) == '`' ? codeAgain(i + 1) : i + 1;
            case COMMENT -> line.startsWith("*/", i) ? codeAgain(i + 2) : i + 1;
            case CODE -> code(line, i);
          };
      if (i == COMMAND) {
        return true;
      }
      if (i == REST_IS_COMMENT) {
        return false;
      }
    }
    return false;
  }

  /** Back in code at {@code next}. */
  private int codeAgain(int next) {
    state = State.CODE;
    return next;
  }

  /** Inside a quoted string: an escaped character is data, the closing quote ends it. */
  private int quoted(String line, int i) {
    char ch = line.charAt(i);
    if (ch == '\\') {
      return i + 2;
    }
    return ch == (state == State.SINGLE_QUOTE ? '\'' : '"') ? codeAgain(i + 1) : i + 1;
  }

  /**
   * One character of code: the index to go on from, {@link #COMMAND} for a backslash command, or
   * {@link #REST_IS_COMMENT}.
   */
  private int code(String line, int i) {
    if (line.startsWith(delimiter, i)) {
      statementStart = true;
      return i + delimiter.length();
    }
    char ch = line.charAt(i);
    if (ch == '\\') {
      // "\-" (as in mariadb-dump's sandbox line) is let through; any other is a client command.
      return i + 1 >= line.length() || line.charAt(i + 1) != '-' ? COMMAND : i + 2;
    }
    if (ch == '#' || (line.startsWith("--", i) && dashComment(line, i))) {
      return REST_IS_COMMENT;
    }
    if (line.startsWith("/*", i) && !executableComment(line, i)) {
      state = State.COMMENT;
      return i + 2;
    }
    if (ch == '\'') {
      state = State.SINGLE_QUOTE;
    } else if (ch == '"') {
      state = State.DOUBLE_QUOTE;
    } else if (ch == '`') {
      state = State.BACKTICK;
    }
    if (!Character.isWhitespace(ch)) {
      statementStart = false;
    }
    return i + 1;
  }

  /** {@code /*!}, {@code /*M!} and {@code /*+}: comments the server runs, so scanned as code. */
  private static boolean executableComment(String line, int i) {
    return line.startsWith("/*!", i) || line.startsWith("/*M!", i) || line.startsWith("/*+", i);
  }

  private enum Named {
    NONE,
    DELIMITER,
    REFUSED
  }

  /**
   * Which named client command a line that starts a statement starts with: USE is left to the scan
   * (the server knows it too), a DELIMITER line changes the delimiter the scan looks for, any other
   * is refused.
   */
  private Named named(String line) {
    String trimmed = line.strip();
    int end = 0;
    while (end < trimmed.length()
        && !Character.isWhitespace(trimmed.charAt(end))
        && trimmed.charAt(end) != ';') {
      end++;
    }
    String word = trimmed.substring(0, end).toLowerCase(Locale.ROOT);
    if (word.equals("use") || !NAMED_COMMANDS.contains(word)) {
      return Named.NONE;
    }
    if (!word.equals("delimiter")) {
      return Named.REFUSED;
    }
    String rest = trimmed.substring(end).strip();
    int space = 0;
    while (space < rest.length() && !Character.isWhitespace(rest.charAt(space))) {
      space++;
    }
    if (space == 0 || rest.indexOf('\\') >= 0 || rest.indexOf('\'') >= 0) {
      return Named.REFUSED;
    }
    delimiter = rest.substring(0, space);
    return Named.DELIMITER;
  }

  /** "--" starts a comment only when a space, a control character or the line's end follows. */
  private static boolean dashComment(String line, int at) {
    return at + 2 >= line.length() || line.charAt(at + 2) <= ' ';
  }
}
