package dev.bosun.web.dependent;

import static dev.bosun.web.dependent.DeploymentDependentTest.webService;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DisruptionBudgetsTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      nullValues = "none",
      textBlock =
          """
          one replica: no budget                 | replicas: 1                                          | none
          two replicas: on by default            | replicas: 2                                          | 1
          zero replicas: no budget               | replicas: 0                                          | none
          switched off with many replicas        | replicas: 5\\ndisruptionBudget: {enabled: false}      | none
          switched on with one replica           | replicas: 1\\ndisruptionBudget: {enabled: true}       | 1
          larger maxUnavailable                  | replicas: 6\\ndisruptionBudget: {maxUnavailable: 2}   | 2
          autoscaler that may grow past one      | autoscaling: {minReplicas: 1, maxReplicas: 4}        | 1
          autoscaler pinned to one               | autoscaling: {minReplicas: 1, maxReplicas: 1}        | none
          """)
  void budgetFollowsTheReplicaCount(String description, String fields, Integer maxUnavailable) {
    var budget =
        DisruptionBudgets.desired(
            webService(
                "image: registry.example.com/a:1\nports: [{port: 80}]\n"
                    + fields.replace("\\n", "\n")
                    + "\n",
                1));
    if (maxUnavailable == null) {
      assertThat(budget).isEmpty();
      return;
    }
    assertThat(budget)
        .hasValueSatisfying(
            b -> {
              assertThat(b.name()).isEqualTo("shop");
              assertThat(b.maxUnavailable()).isEqualTo(maxUnavailable);
              assertThat(b.minAvailable()).isNull();
              assertThat(b.selector())
                  .containsEntry("app.kubernetes.io/instance", "shop")
                  .hasSize(3);
              assertThat(b.labels()).containsEntry("app.kubernetes.io/part-of", "bosun");
            });
  }
}
