package dev.bosun.etcd.reconciler;

import java.util.Comparator;
import java.util.List;

/** The etcd versions this operator knows how to run, and how versions compare. */
public final class SupportedVersions {

  /**
   * Versions with learner support (3.4+) that the operator was written against. 3.4.23 is the
   * version the tests run for real (Debian's etcd-server).
   */
  public static final List<String> ALL = List.of("3.4.23", "3.4.34", "3.4.37", "3.5.17", "3.5.21");

  private SupportedVersions() {}

  public static boolean supported(String version) {
    return ALL.contains(version);
  }

  /** Orders versions numerically (3.4.9 before 3.4.23). */
  public static final Comparator<String> ORDER =
      Comparator.comparingInt((String v) -> part(v, 0))
          .thenComparingInt(v -> part(v, 1))
          .thenComparingInt(v -> part(v, 2));

  public static int part(String version, int index) {
    String[] parts = version.split("\\.");
    return index < parts.length ? Integer.parseInt(parts[index]) : 0;
  }
}
