package dev.bosun.common.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The project's CRDs (from the crds module, on the classpath) in a form the test server accepts.
 * Servers before 1.25 have no CEL: their apply endpoint rejects {@code x-kubernetes-validations} as
 * an undeclared field, so it is removed for them. The operators enforce the same rules themselves.
 */
public final class Crds {

  private static final YAMLMapper YAML = new YAMLMapper();

  private Crds() {}

  /** A file holding CRD {@code name} (plural.group) as the given server can apply it. */
  public static String servableFile(KubernetesClient client, String name) {
    String resource = "/META-INF/fabric8/" + name + "-v1.yml";
    try (InputStream in = Crds.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException(
            "no CRD " + resource + " on the classpath (crds module)");
      }
      JsonNode crd = YAML.readTree(in);
      if (!servesCel(client.getKubernetesVersion())) {
        stripCel(crd);
      }
      Path file = Files.createTempFile(name, "-v1.yml");
      file.toFile().deleteOnExit();
      YAML.writeValue(file.toFile(), crd);
      return file.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Applies each CRD (as {@link #servableFile} adapts it) and waits until it is served. */
  public static void install(KubernetesClient client, String... names) {
    for (String name : names) {
      installOne(client, name);
    }
  }

  /** Applies one CRD and waits until the server serves it. */
  private static void installOne(KubernetesClient client, String name) {
    try (InputStream in = Files.newInputStream(Path.of(servableFile(client, name)))) {
      apply(client, client.apiextensions().v1().customResourceDefinitions().load(in).item());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Applies a CRD built in a test and waits until the server reports it Established and serves it.
   */
  public static void apply(
      KubernetesClient client,
      io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition crd) {
    client.apiextensions().v1().customResourceDefinitions().resource(crd).serverSideApply();
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(crd.getMetadata().getName())
        .waitUntilCondition(
            c ->
                c != null
                    && c.getStatus() != null
                    && c.getStatus().getConditions() != null
                    && c.getStatus().getConditions().stream()
                        .anyMatch(
                            x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())),
            30,
            java.util.concurrent.TimeUnit.SECONDS);
    // Established is not served: a changed CRD keeps the condition while the server rebuilds its
    // handler, and kubectl, which maps kinds through discovery, then finds no such kind (seen under
    // load, the whole admission IT refused with "ensure CRDs are installed first").
    String group = crd.getSpec().getGroup();
    String plural = crd.getSpec().getNames().getPlural();
    for (var version : crd.getSpec().getVersions()) {
      if (Boolean.TRUE.equals(version.getServed())) {
        String groupVersion = group + "/" + version.getName();
        org.awaitility.Awaitility.await(plural + " served in discovery at " + groupVersion)
            .atMost(java.time.Duration.ofSeconds(60))
            .pollInterval(java.time.Duration.ofMillis(200))
            .until(() -> served(client, groupVersion, plural));
      }
    }
  }

  /** Listed both where kubectl looks first (the groups) and in the version's resources. */
  private static boolean served(KubernetesClient client, String groupVersion, String plural) {
    var group = client.getApiGroup(groupVersion.substring(0, groupVersion.indexOf('/')));
    if (group == null
        || group.getVersions().stream().noneMatch(v -> groupVersion.equals(v.getGroupVersion()))) {
      return false;
    }
    var resources = client.getApiResources(groupVersion);
    return resources != null
        && resources.getResources().stream().anyMatch(r -> plural.equals(r.getName()));
  }

  /**
   * Creates a Secret of string data in {@code namespace} (a test's credentials or certificates).
   */
  public static void secret(
      KubernetesClient client, String namespace, String name, Map<String, String> stringData) {
    client
        .secrets()
        .inNamespace(namespace)
        .resource(
            new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withStringData(stringData)
                .build())
        .create();
  }

  /** Creates or updates a namespace with the given labels and annotations (server-side apply). */
  public static String namespace(
      KubernetesClient client,
      String name,
      java.util.Map<String, String> labels,
      java.util.Map<String, String> annotations) {
    client
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .withAnnotations(annotations)
                .endMetadata()
                .build())
        .serverSideApply();
    return name;
  }

  /**
   * Creates a custom resource from raw YAML for its spec, bypassing the Java types, so tests can
   * send what the schema must reject (wrong types, out-of-range values, missing fields).
   */
  public static io.fabric8.kubernetes.api.model.GenericKubernetesResource createRaw(
      KubernetesClient client,
      String apiVersion,
      String kind,
      String namespace,
      String name,
      String specYaml) {
    String yaml =
        "apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\nspec:\n%s"
            .formatted(apiVersion, kind, name, specYaml.indent(2));
    var resource =
        io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
            yaml, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class);
    return client
        .genericKubernetesResources(apiVersion, kind)
        .inNamespace(namespace)
        .resource(resource)
        .create();
  }

  static boolean servesCel(VersionInfo version) {
    int minor = Integer.parseInt(version.getMinor().replaceAll("[^0-9]", ""));
    return Integer.parseInt(version.getMajor()) > 1 || minor >= 25;
  }

  private static void stripCel(JsonNode node) {
    if (node.isObject()) {
      ((ObjectNode) node).remove("x-kubernetes-validations");
    }
    node.forEach(Crds::stripCel);
  }
}
