package dev.bosun.platform;

import dev.bosun.common.testing.InstallScript;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an earlier commit of this repository shipped, built once by {@code hack/previous-release.sh}
 * and cached by commit: its platform chart, its four operator images (tagged {@code git-<commit>},
 * apart from the current ones) and its samples as they were.
 */
public final class PreviousRelease {

  private final String commit;
  private final Path dir;
  private final String tag;

  private PreviousRelease(String commit, Path dir, String tag) {
    this.commit = commit;
    this.dir = dir;
    this.tag = tag;
  }

  /** The release of {@code commit}, built now unless the cache holds it. */
  public static PreviousRelease of(String commit) {
    Path dir = InstallScript.run("previous-release.sh", commit);
    try {
      return new PreviousRelease(commit, dir, Files.readString(dir.resolve("tag")).trim());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The platform chart as that commit's e2e build assembled it. */
  Path chart() {
    return dir.resolve("platform-chart");
  }

  /** The operator's image archive ({@code webservice}, {@code etcd}, …). */
  Path image(String operator) {
    return dir.resolve("images").resolve(operator + ".tar");
  }

  /** A folder laid out as the repository was: {@code <operator>-operator/samples/…}. */
  public Path source() {
    return dir.resolve("source");
  }

  /** The platform chart's values that make each operator run this release's image. */
  Map<String, String> imageTagValues() {
    Map<String, String> values = new LinkedHashMap<>();
    for (String operator : PlatformChart.OPERATORS) {
      values.put(operator + ".image.tag", tag);
    }
    return values;
  }

  @Override
  public String toString() {
    return "commit " + commit + ", images tagged " + tag;
  }
}
