package dev.bosun.common.testing;

import static dev.bosun.common.testing.ChartAssertions.assertClusterRoleGrantsExactly;
import static dev.bosun.common.testing.ChartAssertions.assertHardened;
import static dev.bosun.common.testing.ChartAssertions.assertLeaderElectionRoleLimitedToLease;
import static dev.bosun.common.testing.ChartAssertions.assertMetricsAndProbesOn;
import static dev.bosun.common.testing.ChartAssertions.assertNoWildcards;
import static dev.bosun.common.testing.ChartAssertions.assertResources;
import static dev.bosun.common.testing.ChartAssertions.operatorContainer;
import static dev.bosun.common.testing.ChartAssertions.serviceAccountName;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.runtime.OperatorSettings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What every Bosun operator chart must do, whatever the operator: lint clean, grant exactly what
 * the operator needs without wildcards, take its Lease only, run hardened with the standard
 * resources, probe and expose metrics on the operator's port, and ship its API group's CRDs byte
 * for byte. Each operator's chart test extends it and adds what is particular to it.
 */
public abstract class OperatorChartContract {

  /** The chart under test, rendered as one release. */
  protected abstract HelmChartFixture chart();

  /** The operator's name ({@code bosun-<name>-operator}): labels, field manager, Lease. */
  protected abstract String operatorName();

  /** The API group whose CRDs the chart ships (a folder of {@code crds/}). */
  protected abstract String crdGroup();

  /** What the operator does, as "apiGroup|resource|verb": the chart must grant exactly this. */
  protected abstract Set<String> operatorPermissions();

  /** Further --set pairs whose rendering must be wildcard-free too (e.g. namespace-scoped RBAC). */
  protected List<List<String>> rbacVariants() {
    return List.of();
  }

  /** The release's full name, the name of the chart's objects. */
  protected String fullname() {
    return chart().release() + "-" + operatorName();
  }

  @Test
  void lintsCleanInStrictMode() {
    chart().assertLintsClean();
  }

  @Test
  void noRoleUsesAWildcard() {
    List<HasMetadata> objects = new ArrayList<>(chart().render());
    for (List<String> variant : rbacVariants()) {
      objects.addAll(chart().render(variant.toArray(String[]::new)));
    }
    assertNoWildcards(objects);
  }

  @Test
  void clusterRoleGrantsExactlyWhatTheOperatorNeeds() {
    assertClusterRoleGrantsExactly(chart().render(), operatorPermissions(), chart().namespace());
  }

  @Test
  void leaderElectionRoleCoversTheOperatorsLeaseOnly() {
    assertLeaderElectionRoleLimitedToLease(
        chart().render(),
        fullname(),
        chart().namespace(),
        OperatorSettings.local(operatorName()).leaseName());
  }

  @Test
  void deploymentIsHardened() {
    Deployment deployment = only(chart().render(), Deployment.class);

    assertHardened(deployment);
    assertResources(operatorContainer(deployment), "100m", "256Mi", "512Mi");
    assertThat(serviceAccountName(deployment)).isEqualTo(fullname());
  }

  @Test
  void probesAndMetricsUseTheOperatorsHttpPort() {
    assertMetricsAndProbesOn(chart().render(), 8080);
  }

  @Test
  void chartShipsItsCrdsByteForByte() throws IOException {
    Path sources = chart().dir().resolve("..").resolve("..").resolve("crds").resolve(crdGroup());
    List<String> expected;
    try (Stream<Path> files = Files.list(sources)) {
      expected =
          files
              .map(p -> p.getFileName().toString())
              .filter(name -> name.endsWith("-v1.yml"))
              .sorted()
              .toList();
    }

    assertThat(expected).isNotEmpty();
    assertThat(chart().shippedCrds()).isEqualTo(expected);
    for (String file : expected) {
      assertThat(Files.mismatch(chart().dir().resolve("crds").resolve(file), sources.resolve(file)))
          .as(
              "chart/crds/%s drifted from crds/%s: run the build to copy it again",
              file, crdGroup())
          .isEqualTo(-1L);
    }
  }
}
