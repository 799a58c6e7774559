package dev.bosun.web.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU seconds the benchmark's processes used between two readings: the API server, etcd, the
 * controller manager, the scheduler and this JVM (both sides' clients, the operator and the
 * simulated kubelet). On a machine the run keeps busy, a side's time follows these seconds, and
 * they vary less from round to round than the time does. The machine's steal (time its virtual CPUs
 * waited for the host) is read too: it slows a round without showing in any process's seconds.
 */
final class CpuMeter {

  private static final String[] CONTROL_PLANE = {
    "kube-apiserver", "etcd", "kube-controller-manager", "kube-scheduler"
  };

  private final Map<String, Long> start;
  private final long[] machineStart;
  private final JvmTime jvmStart;

  private CpuMeter(Map<String, Long> start, long[] machineStart, JvmTime jvmStart) {
    this.start = start;
    this.machineStart = machineStart;
    this.jvmStart = jvmStart;
  }

  static CpuMeter start() {
    return new CpuMeter(ticks(), machine(), JvmTime.now());
  }

  /**
   * Seconds this JVM spent compiling (the JIT) and collecting garbage, by the JVM's own clocks
   * (elapsed time, which on a busy machine exceeds the CPU seconds spent): a side whose code the
   * JIT is still compiling is not yet measured warm.
   */
  record JvmTime(double jit, double gc) {
    static JvmTime now() {
      double gc =
          ManagementFactory.getGarbageCollectorMXBeans().stream()
              .mapToLong(GarbageCollectorMXBean::getCollectionTime)
              .filter(ms -> ms > 0)
              .sum();
      return new JvmTime(
          ManagementFactory.getCompilationMXBean().getTotalCompilationTime() / 1000.0, gc / 1000.0);
    }

    JvmTime minus(JvmTime earlier) {
      return new JvmTime(jit - earlier.jit, gc - earlier.gc);
    }

    @Override
    public String toString() {
      return String.format("JIT %.1f s, GC %.1f s", jit, gc);
    }
  }

  /** The JIT's and the collector's seconds since {@link #start}. */
  JvmTime jvmTime() {
    return JvmTime.now().minus(jvmStart);
  }

  /** The share of the machine's CPU time stolen by the host since {@link #start}, in percent. */
  double stealPercent() {
    long[] now = machine();
    long total = now[0] - machineStart[0];
    return total == 0 ? 0 : 100.0 * (now[1] - machineStart[1]) / total;
  }

  /** All CPU ticks of the machine and its steal ticks, from the first line of /proc/stat. */
  private static long[] machine() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long total = 0;
      // user, nice, system, idle, iowait, irq, softirq, steal (guest time is inside user)
      for (int i = 1; i <= 8 && i < f.length; i++) {
        total += Long.parseLong(f[i]);
      }
      return new long[] {total, f.length > 8 ? Long.parseLong(f[8]) : 0};
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/stat", e);
    }
  }

  /** CPU seconds per process since {@link #start}, the JVM last, as {@code "java"}. */
  Map<String, Double> seconds() {
    Map<String, Long> now = ticks();
    Map<String, Double> used = new LinkedHashMap<>();
    now.forEach((name, t) -> used.put(name, (t - start.getOrDefault(name, 0L)) / 100.0));
    return used;
  }

  static double total(Map<String, Double> seconds) {
    return seconds.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  static String describe(Map<String, Double> seconds) {
    StringBuilder s = new StringBuilder(String.format("%.1f CPU-s (", total(seconds)));
    seconds.forEach((name, v) -> s.append(String.format("%s %.1f, ", name, v)));
    s.setLength(s.length() - 2);
    return s.append(')').toString();
  }

  private static Map<String, Long> ticks() {
    Map<String, Long> ticks = new LinkedHashMap<>();
    try {
      for (String name : CONTROL_PLANE) {
        ticks.put(name.replace("kube-", ""), RequestCostBenchmark.cpuTicks(name));
      }
      ticks.put("java", ticksOf(ProcessHandle.current().pid()));
    } catch (Exception e) {
      throw new IllegalStateException("cannot read /proc", e);
    }
    return ticks;
  }

  /** utime + stime of one process, in clock ticks of 10 ms (USER_HZ 100). */
  static long ticksOf(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
