package dev.bosun.common.testing.drill;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * {@code /run/bosun-netlab}: which lab index (which 10.252.N.0/24) each JVM on this machine holds,
 * shared by all of them under an flock(2) lock. Each claimed index has a state file naming its
 * owner (pid and start time, so a reused pid is not mistaken for the owner), a teardown script that
 * removes everything with that index, and a watchdog shell that runs the script when the owner dies
 * without closing its lab.
 */
final class LabDirectory {

  static final Path DIR = Path.of("/run/bosun-netlab");
  static final int INDEXES = 256;

  private static final Path LOCK = DIR.resolve("lock");

  /**
   * Written by the first version of this harness, which switched the global ip_forward on and back
   * off; that could turn forwarding off under a real node started meanwhile, so a leftover is
   * removed and the global switch is never touched (see {@link NetworkLab#host}).
   */
  private static final Path OLD_FORWARDING_BEFORE = DIR.resolve("ip_forward.orig");

  private LabDirectory() {}

  /** A claimed index and the watchdog that tears it down if this JVM dies. */
  record Slot(int index, Process watchdog) {}

  /**
   * Removes the labs of dead owners, claims the lowest free index for this JVM and starts the
   * watchdog.
   */
  static Slot claim(String name) {
    try (Locked locked = lock()) {
      reapStale();
      int index = freeIndex();
      long owner = ProcessHandle.current().pid();
      String started = startTime(owner).orElseThrow();
      Files.writeString(teardownScript(index), teardown(index));
      writeState(index, owner, started, name, -1);
      Files.deleteIfExists(OLD_FORWARDING_BEFORE);
      Process watchdog = startWatchdog(index, owner, started);
      writeState(index, owner, started, name, watchdog.pid());
      return new Slot(index, watchdog);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot claim a network lab in " + DIR, e);
    }
  }

  /** Stops the watchdog and removes everything the lab made. */
  static void release(Slot slot) {
    slot.watchdog().destroy();
    try {
      slot.watchdog().waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Locked locked = lock()) {
      runTeardown(slot.index());
    }
  }

  static Path stateFile(int index) {
    return DIR.resolve("lab-" + index + ".state");
  }

  static Path teardownScript(int index) {
    return DIR.resolve("lab-" + index + ".teardown.sh");
  }

  /** The {@code /proc/<pid>/stat} start time of a live process, in clock ticks after boot. */
  static Optional<String> startTime(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Optional.of(fields[19]);
    } catch (IOException | RuntimeException gone) {
      return Optional.empty();
    }
  }

  /**
   * The shell script that removes lab {@code index}'s namespaces (killing what still runs in them),
   * veths, identity addresses and iptables chain, then its state file. Safe to run twice and on
   * half-built labs.
   */
  static String teardown(int index) {
    String chain = NetworkLab.chain(index);
    return String.join(
        "\n",
        "#!/bin/sh",
        "# Removes network lab " + index + " (written by " + NetworkLab.class.getName() + ").",
        "for l in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep '^"
            + NetworkLab.linkPrefix(index)
            + "'); do ip link del \"$l\" 2>/dev/null; done",
        "for ns in $(ip netns list | awk '{print $1}' | grep '^"
            + NetworkLab.namespacePrefix(index)
            + "'); do",
        "  for p in $(ip netns pids \"$ns\"); do kill -9 \"$p\" 2>/dev/null; done",
        "  ip netns del \"$ns\" 2>/dev/null",
        "done",
        "for a in $(ip -o -4 addr show dev lo | awk '{print $4}' | grep '^"
            + NetworkLab.subnetPrefix(index).replace(".", "\\.")
            + "'); do ip addr del \"$a\" dev lo; done",
        "for c in INPUT OUTPUT FORWARD; do",
        "  while iptables -w -D \"$c\" -j " + chain + " 2>/dev/null; do :; done",
        "done",
        "iptables -w -F " + chain + " 2>/dev/null",
        "iptables -w -X " + chain + " 2>/dev/null",
        "rm -f " + stateFile(index),
        "rm -f " + teardownScript(index),
        "");
  }

  private static void reapStale() throws IOException {
    for (int index = 0; index < INDEXES; index++) {
      Path state = stateFile(index);
      if (Files.exists(state) && !ownerAlive(readState(state))) {
        runTeardown(index);
      }
    }
  }

  private static boolean ownerAlive(Properties state) {
    try {
      long owner = Long.parseLong(state.getProperty("owner", "-1"));
      return startTime(owner).map(s -> s.equals(state.getProperty("start"))).orElse(false);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static int freeIndex() {
    for (int index = 0; index < INDEXES; index++) {
      if (!Files.exists(stateFile(index))) {
        return index;
      }
    }
    throw new IllegalStateException("all " + INDEXES + " network labs in " + DIR + " are in use");
  }

  private static void runTeardown(int index) {
    try {
      // Regenerated each time, so a lab of an older harness version is removed the current way.
      Files.writeString(teardownScript(index), teardown(index));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Shell.run("sh", teardownScript(index).toString());
  }

  /**
   * A shell in a session of its own (it outlives a killed JVM) that polls the owner and, once it is
   * gone, takes the lock and runs the teardown script if the state file still names that owner
   * (another JVM may have removed the lab and reused the index meanwhile).
   */
  private static Process startWatchdog(int index, long owner, String started) throws IOException {
    Path state = stateFile(index);
    String script =
        "while kill -0 "
            + owner
            + " 2>/dev/null; do sleep 1; done; exec flock "
            + Shell.quote(LOCK.toString())
            + " sh -c "
            + Shell.quote(
                "grep -qx owner="
                    + owner
                    + " "
                    + state
                    + " && grep -qx start="
                    + started
                    + " "
                    + state
                    + " && sh "
                    + teardownScript(index));
    return new ProcessBuilder("setsid", "sh", "-c", script)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  private static void writeState(int index, long owner, String started, String name, long watchdog)
      throws IOException {
    Path tmp = DIR.resolve("lab-" + index + ".state.tmp");
    Files.writeString(
        tmp,
        String.join(
            "\n",
            "owner=" + owner,
            "start=" + started,
            "name=" + name,
            "watchdog=" + watchdog,
            ""));
    Files.move(tmp, stateFile(index), StandardCopyOption.ATOMIC_MOVE);
  }

  static Properties readState(Path state) throws IOException {
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(state)) {
      p.load(in);
    } catch (NoSuchFileException gone) {
      return p;
    }
    return p;
  }

  /** The lab lock, held by an {@code flock} child until closed (or until this JVM dies). */
  private static Locked lock() {
    try {
      Files.createDirectories(DIR);
      Process holder =
          new ProcessBuilder(
                  "flock",
                  "-w",
                  "120",
                  LOCK.toString(),
                  "sh",
                  "-c",
                  "echo locked; exec cat >/dev/null")
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      if (!"locked".equals(out.readLine())) {
        holder.destroyForcibly();
        throw new IllegalStateException("cannot lock " + LOCK + " within 120 s");
      }
      return new Locked(holder);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + LOCK, e);
    }
  }

  private record Locked(Process holder) implements AutoCloseable {
    @Override
    public void close() {
      try {
        holder.getOutputStream().close();
        if (!holder.waitFor(10, TimeUnit.SECONDS)) {
          holder.destroyForcibly();
        }
      } catch (IOException e) {
        holder.destroyForcibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        holder.destroyForcibly();
      }
    }
  }
}
