package dev.bosun.common.testing;

import static dev.bosun.common.testing.ChartAssertions.grants;
import static dev.bosun.common.testing.ChartAssertions.operatorContainer;
import static dev.bosun.common.testing.ChartAssertions.permissions;
import static dev.bosun.common.testing.ChartAssertions.resolvedEnv;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.admission.WebhookSettings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.util.List;
import java.util.stream.Stream;

/**
 * What an operator chart renders with {@code webhook.enabled}: checked the same for every chart.
 */
public final class WebhookChartAssertions {

  /**
   * One kind the webhook checks.
   *
   * @param group its API group
   * @param version its version
   * @param resource its plural
   * @param path the operator's route for it
   */
  public record Checked(String group, String version, String resource, String path) {}

  private WebhookChartAssertions() {}

  /**
   * Asserts that {@code objects} send CREATE (failurePolicy Fail) and UPDATE (Ignore), never DELETE
   * or status, of exactly {@code checked} to the operator's webhook Service, that the operator's
   * environment names what the configuration and Service are (as {@link WebhookSettings} reads it),
   * and that the operator may get and patch only that configuration and its own TLS Secret.
   */
  public static void assertWebhook(
      List<HasMetadata> objects, String fullname, String namespace, List<Checked> checked) {
    ValidatingWebhookConfiguration configuration =
        only(objects, ValidatingWebhookConfiguration.class);
    String service = fullname + "-webhook";
    assertThat(configuration.getMetadata().getName()).isEqualTo(namespace + "-" + fullname);
    assertWebhooks(configuration, service, namespace, checked);
    assertService(objects, service, configuration);
    WebhookSettings settings = assertSettings(objects, service, namespace, configuration, fullname);
    assertPermissions(objects, fullname, namespace, configuration, settings);
  }

  /** One webhook for CREATE (Fail) and one for UPDATE (Ignore) of each checked kind. */
  private static void assertWebhooks(
      ValidatingWebhookConfiguration configuration,
      String service,
      String namespace,
      List<Checked> checked) {
    assertThat(configuration.getWebhooks())
        .extracting(ValidatingWebhook::getName)
        .containsExactlyElementsOf(
            checked.stream()
                .flatMap(
                    c ->
                        Stream.of(
                            c.resource() + "." + c.group(),
                            "updates." + c.resource() + "." + c.group()))
                .toList());
    for (int i = 0; i < configuration.getWebhooks().size(); i++) {
      Checked kind = checked.get(i / 2);
      ValidatingWebhook webhook = configuration.getWebhooks().get(i);
      // Creates fail closed; updates fail open, so that metadata-only writes (finalizers) pass
      // while no replica answers (a 1.20 API server has no matchConditions).
      boolean create = i % 2 == 0;
      assertThat(webhook.getFailurePolicy()).isEqualTo(create ? "Fail" : "Ignore");
      assertThat(webhook.getSideEffects()).isEqualTo("None");
      assertThat(webhook.getTimeoutSeconds()).isBetween(1, 10);
      assertThat(webhook.getAdmissionReviewVersions()).containsExactly("v1");
      // The operator fills it in; a chart value would be overwritten at every upgrade.
      assertThat(webhook.getClientConfig().getCaBundle()).isNull();
      assertThat(webhook.getClientConfig().getService().getName()).isEqualTo(service);
      assertThat(webhook.getClientConfig().getService().getNamespace()).isEqualTo(namespace);
      assertThat(webhook.getClientConfig().getService().getPath()).isEqualTo(kind.path());
      assertThat(webhook.getRules())
          .singleElement()
          .satisfies(
              rule -> {
                assertThat(rule.getApiGroups()).containsExactly(kind.group());
                assertThat(rule.getApiVersions()).containsExactly(kind.version());
                assertThat(rule.getResources()).containsExactly(kind.resource());
                assertThat(rule.getOperations()).containsExactly(create ? "CREATE" : "UPDATE");
              });
    }
  }

  private static void assertService(
      List<HasMetadata> objects, String service, ValidatingWebhookConfiguration configuration) {
    Service webhookService =
        all(objects, Service.class).stream()
            .filter(s -> s.getMetadata().getName().equals(service))
            .findFirst()
            .orElseThrow();
    int servicePort = configuration.getWebhooks().get(0).getClientConfig().getService().getPort();
    assertThat(webhookService.getSpec().getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getPort()).isEqualTo(servicePort);
              assertThat(p.getTargetPort().getStrVal()).isEqualTo("https-webhook");
            });
  }

  /** The operator's environment names the configuration, the Service and the TLS Secret. */
  private static WebhookSettings assertSettings(
      List<HasMetadata> objects,
      String service,
      String namespace,
      ValidatingWebhookConfiguration configuration,
      String fullname) {
    Deployment deployment = only(objects, Deployment.class);
    WebhookSettings settings =
        WebhookSettings.fromEnvironment(resolvedEnv(deployment, namespace)).orElseThrow();
    assertThat(settings.configuration()).isEqualTo(configuration.getMetadata().getName());
    // The API server calls <service>.<namespace>.svc: the certificate must carry that name.
    assertThat(settings.dnsNames()).contains(service + "." + namespace + ".svc");
    assertThat(settings.tlsSecret()).isEqualTo(fullname + "-tls");
    assertThat(operatorContainer(deployment).getPorts())
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("https-webhook");
              assertThat(p.getContainerPort()).isEqualTo(settings.port());
            });
    return settings;
  }

  /** The operator may get and patch its configuration only, and keep its own TLS Secret. */
  private static void assertPermissions(
      List<HasMetadata> objects,
      String fullname,
      String namespace,
      ValidatingWebhookConfiguration configuration,
      WebhookSettings settings) {
    ClusterRole keeper =
        all(objects, ClusterRole.class).stream()
            .filter(r -> r.getMetadata().getName().equals(fullname + "-webhook"))
            .findFirst()
            .orElseThrow();
    assertThat(permissions(keeper.getRules()))
        .isEqualTo(
            permissions(
                grants(
                    "admissionregistration.k8s.io",
                    "validatingwebhookconfigurations",
                    "get patch")));
    assertThat(keeper.getRules())
        .allSatisfy(
            r ->
                assertThat(r.getResourceNames())
                    .containsExactly(configuration.getMetadata().getName()));
    Role tls =
        all(objects, Role.class).stream()
            .filter(r -> r.getMetadata().getName().equals(fullname + "-tls"))
            .findFirst()
            .orElseThrow();
    assertThat(tls.getMetadata().getNamespace()).isEqualTo(namespace);
    assertThat(permissions(tls.getRules()))
        .isEqualTo(permissions(grants("", "secrets", "create get update")));
    assertThat(tls.getRules())
        .filteredOn(r -> !r.getVerbs().contains("create"))
        .allSatisfy(r -> assertThat(r.getResourceNames()).containsExactly(settings.tlsSecret()));
  }
}
