package dev.bosun.common.testing;

import static dev.bosun.common.testing.ChartAssertions.env;
import static dev.bosun.common.testing.ChartAssertions.leaderElectionRole;
import static dev.bosun.common.testing.ChartAssertions.permissions;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.bosun.common.runtime.OperatorSettings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of a chart whose operator can be confined to some namespaces ({@code
 * watchNamespaces}): Roles there instead of a ClusterRole, and no cluster-wide right on a
 * namespaced object.
 */
public abstract class NamespaceScopedChartContract extends OperatorChartContract {

  private static final List<String> TWO_NAMESPACES =
      List.of("watchNamespaces[0]", "a", "watchNamespaces[1]", "b");

  protected NamespaceScopedChartContract(
      HelmChartFixture chart,
      String operatorName,
      String crdGroup,
      Set<String> operatorPermissions) {
    super(chart, operatorName, crdGroup, operatorPermissions);
  }

  @Override
  protected List<List<String>> rbacVariants() {
    return List.of(TWO_NAMESPACES);
  }

  /**
   * The cluster-scoped reads ("apiGroup|resource|verb" on cluster-scoped kinds only) the operator
   * still needs when confined to some namespaces, granted by one ClusterRole; none by default.
   */
  protected Set<String> clusterScopedReads() {
    return Set.of();
  }

  /**
   * Rights on cluster-scoped kinds ("apiGroup|resource|verb") the operator has only when it watches
   * every namespace, for a feature that says what to do without them; never granted when confined.
   */
  protected Set<String> clusterModeOnly() {
    return Set.of();
  }

  /** Values of the namespace-scope settings the schema refuses, with the path it names. */
  static Stream<Arguments> namespaceScopeValuesTheSchemaRejects() {
    return Stream.of(
        // The watched namespaces alone decide the scope: there is no separate switch.
        Arguments.of(
            List.of("rbac.scope", "namespace"), "additional properties 'scope' not allowed"),
        Arguments.of(List.of("watchNamespaces[0]", "Not_A_Namespace"), "/watchNamespaces/0"),
        Arguments.of(List.of("watchNamespaces[0]", ""), "/watchNamespaces/0"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("namespaceScopeValuesTheSchemaRejects")
  void schemaRejectsInvalidNamespaceScopeValues(List<String> keysAndValues, String where) {
    chart().assertSchemaRejects(keysAndValues, where);
  }

  @Test
  void namespaceScopeGrantsRolesInTheWatchedNamespacesOnly() {
    List<HasMetadata> objects = renderOperator(TWO_NAMESPACES.toArray(String[]::new));
    String fullname = fullname();
    String namespace = chart().namespace();

    List<ClusterRole> clusterRoles = all(objects, ClusterRole.class);
    if (clusterScopedReads().isEmpty()) {
      assertThat(clusterRoles).isEmpty();
      assertThat(all(objects, ClusterRoleBinding.class)).isEmpty();
    } else {
      assertThat(clusterRoles).hasSize(1);
      assertThat(permissions(clusterRoles.get(0).getRules())).isEqualTo(clusterScopedReads());
      assertThat(all(objects, ClusterRoleBinding.class))
          .singleElement()
          .satisfies(
              b -> {
                assertThat(b.getRoleRef().getName())
                    .isEqualTo(clusterRoles.get(0).getMetadata().getName());
                assertThat(b.getSubjects())
                    .extracting(Subject::getName, Subject::getNamespace)
                    .containsExactly(tuple(fullname(), chart().namespace()));
              });
    }
    Set<String> namespacedPermissions = new java.util.TreeSet<>(operatorPermissions());
    namespacedPermissions.removeAll(clusterScopedReads());
    namespacedPermissions.removeAll(clusterModeOnly());
    List<Role> operatorRoles =
        all(objects, Role.class).stream()
            .filter(r -> r.getMetadata().getName().equals(fullname))
            .toList();
    assertThat(operatorRoles)
        .extracting(r -> r.getMetadata().getNamespace())
        .containsExactlyInAnyOrder("a", "b");
    assertThat(operatorRoles)
        .allSatisfy(r -> assertThat(permissions(r.getRules())).isEqualTo(namespacedPermissions));
    List<RoleBinding> operatorBindings =
        all(objects, RoleBinding.class).stream()
            .filter(b -> b.getRoleRef().getName().equals(fullname))
            .toList();
    assertThat(operatorBindings)
        .extracting(b -> b.getMetadata().getNamespace())
        .containsExactlyInAnyOrder("a", "b");
    assertThat(operatorBindings)
        .allSatisfy(
            b -> {
              assertThat(b.getRoleRef().getKind()).isEqualTo("Role");
              assertThat(b.getSubjects())
                  .extracting(Subject::getName, Subject::getNamespace)
                  .containsExactly(tuple(fullname, namespace));
            });
    // The Lease stays in the release namespace whatever the operator watches.
    assertThat(leaderElectionRole(objects, fullname).getMetadata().getNamespace())
        .isEqualTo(namespace);
    assertThat(
            env(only(objects, Deployment.class)).get(OperatorSettings.WATCH_NAMESPACES).getValue())
        .isEqualTo("a,b");
  }
}
