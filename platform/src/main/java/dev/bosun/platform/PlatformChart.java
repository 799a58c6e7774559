package dev.bosun.platform;

import dev.bosun.common.testing.HelmChartFixture;
import java.nio.file.Path;
import java.util.List;

/** The umbrella chart as the build assembles it (subcharts unpacked under charts/). */
public final class PlatformChart {

  /** The four operators: the umbrella chart's aliases, in the order the chart lists them. */
  public static final List<String> OPERATORS = List.of("webservice", "configsync", "etcd", "mysql");

  private PlatformChart() {}

  /** The assembled chart directory (target/platform-chart of the platform module). */
  public static Path dir() {
    String dir = System.getProperty("bosun.platform.chart");
    if (dir == null) {
      throw new IllegalStateException(
          "bosun.platform.chart is not set: run through Maven or ./bosun, which assemble the chart");
    }
    return Path.of(dir);
  }

  /** The chart as release {@code release} in {@code namespace}. */
  public static HelmChartFixture fixture(String release, String namespace) {
    return new HelmChartFixture(dir(), release, namespace);
  }

  /** The chart name of an operator's subchart. */
  public static String chartName(String operator) {
    return "bosun-" + operator + "-operator";
  }
}
