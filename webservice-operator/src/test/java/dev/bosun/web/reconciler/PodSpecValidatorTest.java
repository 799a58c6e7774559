package dev.bosun.web.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PodSpecValidatorTest {

  private static final String BASE = "image: registry.example.com/a:1\nports: [{port: 80}]\n";

  @Test
  void theFullPodSpecOfTheDependentTestIsValid() {
    assertThat(
            WebServiceValidator.validate(
                spec(
                    BASE
                        + """
                        podLabels: {team: payments}
                        podAnnotations: {prometheus.io/scrape: "true"}
                        nodeSelector: {kubernetes.io/os: linux}
                        tolerations: [{operator: Exists}, {key: a, operator: Exists, effect: NoExecute, tolerationSeconds: 5}]
                        affinity:
                          nodeAffinity:
                            requiredDuringSchedulingIgnoredDuringExecution:
                              nodeSelectorTerms: [{matchExpressions: [{key: cores, operator: Gt, values: ["4"]}]}]
                          podAffinity:
                            requiredDuringSchedulingIgnoredDuringExecution:
                              - {topologyKey: zone, labelSelector: {matchExpressions: [{key: tier, operator: Exists}]}}
                        topologySpreadConstraints:
                          - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
                          - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}
                        volumes: [{name: v, emptyDir: {}}]
                        volumeMounts: [{name: v, mountPath: /v, subPath: a/b}]
                        securityContext: {runAsNonRoot: false, runAsUser: 0, seccompProfile: {type: Localhost, localhostProfile: p.json}}
                        rollingUpdate: {maxSurge: 0, maxUnavailable: 1}
                        """)))
        .isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          volume with two sources       | volumes: [{name: v, emptyDir: {}, secret: {secretName: s}}] | spec.volumes[v] needs exactly one of configMap, secret, emptyDir or persistentVolumeClaim
          volume without source         | volumes: [{name: v}]                                        | spec.volumes[v] needs exactly one
          mount of an unknown volume    | volumeMounts: [{name: nope, mountPath: /x}]                 | spec.volumeMounts[/x] mounts volume 'nope', which is not in spec.volumes
          subPath escaping the volume   | volumes: [{name: v, emptyDir: {}}]\\nvolumeMounts: [{name: v, mountPath: /x, subPath: a/../..}] | subPath must not contain '..'
          reserved pod label            | podLabels: {app.kubernetes.io/instance: other}            | spec.podLabels: app.kubernetes.io/instance is set by Bosun and cannot be overridden
          malformed pod label key       | podLabels: {'bad key': x}                                   | spec.podLabels key 'bad key' may only contain
          malformed annotation prefix   | podAnnotations: {'Example.COM/x': y}                       | spec.podAnnotations key prefix 'Example.COM'
          malformed node selector key   | nodeSelector: {'-x': y}                                     | spec.nodeSelector key '-x' may only contain
          Exists with a value           | tolerations: [{key: k, operator: Exists, value: v}]        | spec.tolerations[0]: operator Exists takes no value
          Equal without key             | tolerations: [{value: v}]                                   | spec.tolerations[0]: a toleration without a key needs operator Exists
          seconds without NoExecute     | tolerations: [{key: k, effect: NoSchedule, tolerationSeconds: 5}] | spec.tolerations[0]: tolerationSeconds needs effect NoExecute
          node In without values        | affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In}]}]}}} | nodeSelectorTerms[0] (a In): In and NotIn need values
          node Gt with a word           | affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchFields: [{key: a, operator: Gt, values: [many]}]}}]}} | Gt and Lt take exactly one integer value
          pod term Exists with values   | affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: z, labelSelector: {matchExpressions: [{key: a, operator: Exists, values: [x]}]}}]}} | spec.affinity.podAntiAffinity.required[0].labelSelector.matchExpressions[0] (a Exists): Exists and DoesNotExist take no values
          same spread key twice         | topologySpreadConstraints: [{maxSkew: 1, topologyKey: z, whenUnsatisfiable: DoNotSchedule}, {maxSkew: 2, topologyKey: z, whenUnsatisfiable: DoNotSchedule}] | spec.topologySpreadConstraints[1]: topologyKey z with DoNotSchedule is listed twice
          root while non-root           | securityContext: {runAsUser: 0}                             | spec.securityContext: runAsUser 0 is root; set runAsNonRoot: false to allow it
          Localhost without profile     | securityContext: {seccompProfile: {type: Localhost}}       | type Localhost needs localhostProfile
          profile without Localhost     | securityContext: {seccompProfile: {localhostProfile: p.json}} | localhostProfile needs type Localhost
          rollout that cannot move      | rollingUpdate: {maxSurge: 0}                                | spec.rollingUpdate: maxSurge and maxUnavailable are both 0
          rollout that cannot move in % | rollingUpdate: {maxSurge: 0%, maxUnavailable: 0}           | maxSurge and maxUnavailable are both 0
          startup probe on unknown port | startupProbe: {tcpSocket: {port: admin}}                    | spec.startupProbe uses port 'admin', which is not in spec.ports
          """)
  void problem(String description, String fields, String expected) {
    assertThat(WebServiceValidator.validate(spec(BASE + fields.replace("\\n", "\n") + "\n")))
        .anySatisfy(p -> assertThat(p).contains(expected));
  }

  private static WebServiceSpec spec(String specYaml) {
    String yaml =
        "apiVersion: web.bosun.dev/v1alpha1\nkind: WebService\nmetadata: {name: shop}\nspec:\n"
            + specYaml.indent(2);
    return Serialization.unmarshal(yaml, WebService.class).getSpec();
  }
}
