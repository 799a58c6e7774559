package dev.bosun.mysql.backup;

import dev.bosun.mysql.client.MariaDbGtids;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps, of a member's binlog as {@code mariadb-binlog --verbose} prints it, the transactions whose
 * GTID lies beyond a reference position: its errant transactions, as replayable statements with
 * their rows spelled out in comments. The format descriptions stay, so the BINLOG statements can be
 * applied by {@code mariadb}.
 */
public final class ErrantBinlog {

  private static final Pattern GTID = Pattern.compile("^#\\d{6} .*\\tGTID (\\d+-\\d+-\\d+)");

  /** The GTIDs kept. */
  private final List<String> kept = new ArrayList<>();

  private ErrantBinlog() {}

  /** Copies the errant transactions of {@code binlog} to {@code out}; returns their GTIDs. */
  public static List<String> filter(BufferedReader binlog, Writer out, String reference)
      throws IOException {
    ErrantBinlog f = new ErrantBinlog();
    f.run(binlog, out, reference);
    return f.kept;
  }

  private void run(BufferedReader in, Writer out, String reference) throws IOException {
    List<String> event = new ArrayList<>();
    boolean preamble = true;
    boolean keep = false;
    String line;
    while ((line = in.readLine()) != null) {
      if (line.startsWith("# at ") || line.equals("DELIMITER ;")) {
        if (preamble) {
          write(out, event);
          preamble = false;
        } else {
          keep = decide(event, keep, reference);
          if (keep || describesFormat(event)) {
            write(out, event);
          }
        }
        event.clear();
        if (line.equals("DELIMITER ;")) {
          // The trailer: written whole after the last event.
          event.add(line);
          while ((line = in.readLine()) != null) {
            event.add(line);
          }
          write(out, event);
          return;
        }
      }
      event.add(line);
    }
    if (!preamble && (decide(event, keep, reference) || describesFormat(event))) {
      write(out, event);
    }
  }

  /** Whether the event belongs to a kept transaction: a GTID event starts a new one. */
  private boolean decide(List<String> event, boolean keeping, String reference) {
    for (String l : event) {
      Matcher m = GTID.matcher(l);
      if (m.find()) {
        boolean errant = MariaDbGtids.beyond(m.group(1), reference);
        if (errant) {
          kept.add(m.group(1));
        }
        return errant;
      }
    }
    return keeping;
  }

  private static boolean describesFormat(List<String> event) {
    return event.stream().anyMatch(l -> l.startsWith("#") && l.contains("\tStart: binlog"));
  }

  private static void write(Writer out, List<String> lines) throws IOException {
    for (String l : lines) {
      out.write(l);
      out.write('\n');
    }
  }
}
