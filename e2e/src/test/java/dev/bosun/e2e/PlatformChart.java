package dev.bosun.e2e;

import dev.bosun.common.testing.HelmChartFixture;
import java.nio.file.Path;
import java.util.List;

/** The umbrella chart as the build assembles it (subcharts unpacked under charts/). */
final class PlatformChart {

  /** The four operators: the umbrella chart's aliases, in the order the chart lists them. */
  static final List<String> OPERATORS = List.of("webservice", "configsync", "etcd", "mysql");

  private PlatformChart() {}

  /** The assembled chart directory (target/platform-chart of the e2e module). */
  static Path dir() {
    String dir = System.getProperty("bosun.platform.chart");
    if (dir == null) {
      throw new IllegalStateException(
          "bosun.platform.chart is not set: run the tests through Maven, which assembles the chart");
    }
    return Path.of(dir);
  }

  /** The chart as release {@code release} in {@code namespace}. */
  static HelmChartFixture fixture(String release, String namespace) {
    return new HelmChartFixture(dir(), release, namespace);
  }

  /** The chart name of an operator's subchart. */
  static String chartName(String operator) {
    return "bosun-" + operator + "-operator";
  }
}
