package dev.bosun.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** A Helm chart on disk, linted and rendered in-process by helm-java as one release. */
public final class HelmChartFixture {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final String HEREDOC_START = "<<'EOF'\n";
  private static final String HEREDOC_END = "\nEOF\n";

  private final Path chart;
  private final String release;
  private final String namespace;

  /** The chart in directory {@code chart}, installed as {@code release} into {@code namespace}. */
  public HelmChartFixture(Path chart, String release, String namespace) {
    this.chart = chart;
    this.release = release;
    this.namespace = namespace;
  }

  /** The chart's directory. */
  public Path dir() {
    return chart;
  }

  /** The release name the chart is rendered as. */
  public String release() {
    return release;
  }

  /** The release namespace the chart is rendered into. */
  public String namespace() {
    return namespace;
  }

  /** The serialization that parses rendered objects (fabric8's, with its registered kinds). */
  public static KubernetesSerialization serialization() {
    return SERIALIZATION;
  }

  /** Renders the chart with the given --set pairs (key1, value1, key2, value2, ...). */
  public List<HasMetadata> render(String... keysAndValues) {
    return render(new Helm(chart).template(), keysAndValues);
  }

  /** Renders the chart as for an API server of {@code kubeVersion} (e.g. "v1.20.2"). */
  public List<HasMetadata> renderFor(String kubeVersion, String... keysAndValues) {
    return render(new Helm(chart).template().withKubeVersion(kubeVersion), keysAndValues);
  }

  private List<HasMetadata> render(TemplateCommand command, String... keysAndValues) {
    TemplateCommand template = command.withName(release).withNamespace(namespace);
    for (int i = 0; i < keysAndValues.length; i += 2) {
      template = template.set(keysAndValues[i], keysAndValues[i + 1]);
    }
    return parse(template.call());
  }

  /** Asserts that rendering with the given --set pairs fails the values schema at {@code where}. */
  public void assertSchemaRejects(List<String> keysAndValues, String where) {
    assertThatThrownBy(() -> render(keysAndValues.toArray(String[]::new)))
        .hasMessageContaining("schema")
        .hasMessageContaining(where);
  }

  /** Lints the chart in strict mode. */
  public LintResult lint() {
    return new Helm(chart).lint().strict().call();
  }

  /** Asserts that strict lint passes without a warning or an error. */
  public void assertLintsClean() {
    LintResult result = lint();

    assertThat(result.isFailed()).as("lint messages: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages())
        .noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
  }

  /** The NOTES a client-only dry-run install with the given --set pairs prints. */
  public String notes(String... keysAndValues) {
    InstallCommand install =
        new Helm(chart).install().withName(release).withNamespace(namespace).clientOnly().dryRun();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      install = install.set(keysAndValues[i], keysAndValues[i + 1]);
    }
    return install.call().getOutput();
  }

  /** The body of the first {@code <<'EOF'} heredoc in {@code notes}: what the user pastes. */
  public static String heredoc(String notes) {
    int start = notes.indexOf(HEREDOC_START);
    assertThat(start).as("a <<'EOF' heredoc in the notes").isNotNegative();
    return notes.substring(start + HEREDOC_START.length(), notes.indexOf(HEREDOC_END, start));
  }

  /** The chart's Chart.yaml. */
  public Map<?, ?> chartYaml() {
    return read(chart.resolve("Chart.yaml"), Map.class);
  }

  /** The directory of the CRD files the chart templates (copied there from crds/ by the build). */
  public Path crdFiles() {
    return chart.resolve("files").resolve("crds");
  }

  /** The names of the files in the chart's CRD directory ({@link #crdFiles()}), sorted. */
  public List<String> shippedCrds() {
    try (Stream<Path> files = Files.list(crdFiles())) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Copies the chart into {@code target} and returns the copy, rendered as the same release. Links
   * are followed, so the copy holds the library chart itself, not a link that no longer resolves.
   */
  public HelmChartFixture copyTo(Path target) {
    try (Stream<Path> files = Files.walk(chart, FileVisitOption.FOLLOW_LINKS)) {
      for (Path source : files.toList()) {
        Path destination = target.resolve(chart.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(destination);
        } else {
          Files.copy(source, destination);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new HelmChartFixture(target, release, namespace);
  }

  /**
   * Copies the chart into {@code target} as it renders on a cluster serving {@code api}
   * ("group/version/Kind"), returning the copy. helm-java 0.0.21 cannot pass helm's --api-versions,
   * so every {@code .Capabilities.APIVersions.Has "<api>"} in the copy's templates, the library
   * chart's included (there must be one), becomes {@code true}: nothing else changes.
   */
  public HelmChartFixture copyServing(Path target, String api) {
    HelmChartFixture copy = copyTo(target);
    String check = ".Capabilities.APIVersions.Has \"" + api + "\"";
    int replaced = 0;
    try (Stream<Path> files = Files.walk(target)) {
      for (Path file :
          files
              .filter(Files::isRegularFile)
              .filter(f -> f.toString().endsWith(".tpl") || f.toString().endsWith(".yaml"))
              .toList()) {
        String text = Files.readString(file);
        if (text.contains(check)) {
          Files.writeString(file, text.replace(check, "true"));
          replaced++;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(replaced).as("templates checking %s", check).isPositive();
    return copy;
  }

  /** Replaces {@code defaults} (which must be there) by {@code replacement} in values.yaml. */
  public void editValues(String defaults, String replacement) {
    Path values = chart.resolve("values.yaml");
    try {
      String text = Files.readString(values);
      assertThat(text).contains(defaults);
      Files.writeString(values, text.replace(defaults, replacement));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The objects of a multi-document YAML stream, typed as fabric8 knows them. */
  public static List<HasMetadata> parse(String yaml) {
    Object parsed = SERIALIZATION.unmarshal(yaml);
    if (parsed instanceof List<?> documents) {
      return documents.stream().map(HasMetadata.class::cast).toList();
    }
    return List.of((HasMetadata) parsed);
  }

  /** Reads a YAML or JSON file as {@code type}. */
  public static <T> T read(Path file, Class<T> type) {
    try {
      return SERIALIZATION.unmarshal(Files.readString(file), type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The objects of {@code type}, in rendering order. */
  public static <T extends HasMetadata> List<T> all(List<HasMetadata> objects, Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /** The one object of {@code type}; fails unless there is exactly one. */
  public static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> type) {
    List<T> found = all(objects, type);
    assertThat(found).as("rendered %ss", type.getSimpleName()).hasSize(1);
    return found.get(0);
  }
}
