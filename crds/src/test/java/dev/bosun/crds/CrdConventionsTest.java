package dev.bosun.crds;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Holds every CRD in this module to the API conventions of DESIGN.md. */
class CrdConventionsTest {

  static Stream<Path> crdFiles() throws IOException {
    Path root = Path.of(System.getProperty("user.dir"));
    return Files.list(root)
        .filter(p -> p.getFileName().toString().endsWith(".bosun.dev"))
        .flatMap(
            dir -> {
              try {
                return Files.list(dir)
                    .filter(p -> p.toString().endsWith("-v1.yml"))
                    .toList()
                    .stream();
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            });
  }

  static CustomResourceDefinition load(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
  }

  @ParameterizedTest
  @MethodSource("crdFiles")
  void crdIsInItsGroupFolderAndHasTheUsualAffordances(Path file) throws IOException {
    CustomResourceDefinition crd = load(file);
    assertThat(crd.getApiVersion()).isEqualTo("apiextensions.k8s.io/v1");
    assertThat(file.getParent().getFileName().toString()).isEqualTo(crd.getSpec().getGroup());
    assertThat(crd.getMetadata().getName())
        .isEqualTo(crd.getSpec().getNames().getPlural() + "." + crd.getSpec().getGroup());
    assertThat(crd.getSpec().getNames().getShortNames()).isNotEmpty();
    assertThat(crd.getSpec().getNames().getCategories()).contains("bosun");
    for (CustomResourceDefinitionVersion v : crd.getSpec().getVersions()) {
      assertThat(v.getSubresources().getStatus()).as("status subresource").isNotNull();
      assertThat(v.getAdditionalPrinterColumns())
          .extracting(c -> c.getName())
          .contains("Ready", "Age");
      JSONSchemaProps status = v.getSchema().getOpenAPIV3Schema().getProperties().get("status");
      assertThat(status.getProperties()).containsKeys("observedGeneration", "conditions");
      assertThat(status.getProperties().get("conditions").getItems().getSchema().getRequired())
          .contains("type", "status", "lastTransitionTime", "reason", "message");
    }
  }

  @ParameterizedTest
  @MethodSource("crdFiles")
  void everySpecFieldIsTypedAndBounded(Path file) throws IOException {
    CustomResourceDefinition crd = load(file);
    List<String> problems = new ArrayList<>();
    for (CustomResourceDefinitionVersion v : crd.getSpec().getVersions()) {
      JSONSchemaProps spec = v.getSchema().getOpenAPIV3Schema().getProperties().get("spec");
      walk("spec", spec, problems);
    }
    assertThat(problems).as("schema problems in %s", file).isEmpty();
  }

  /** A field is bounded when a user cannot put an arbitrarily large or malformed value in it. */
  private static void walk(String path, JSONSchemaProps s, List<String> problems) {
    if (s.getType() == null && !Boolean.TRUE.equals(s.getXKubernetesIntOrString())) {
      problems.add(path + ": no type");
      return;
    }
    String type = s.getType() == null ? "int-or-string" : s.getType();
    switch (type) {
      case "string" -> {
        if (s.getEnum() == null
            && s.getPattern() == null
            && s.getFormat() == null
            && s.getMaxLength() == null) {
          problems.add(path + ": string without enum, pattern, format or maxLength");
        }
      }
      case "integer", "number" -> {
        if (s.getMinimum() == null || s.getMaximum() == null) {
          problems.add(path + ": number without minimum and maximum");
        }
      }
      case "array" -> {
        if (s.getMaxItems() == null) {
          problems.add(path + ": array without maxItems");
        }
        walk(path + "[]", s.getItems().getSchema(), problems);
      }
      case "object" -> {
        if (s.getAdditionalProperties() != null
            && s.getAdditionalProperties().getSchema() != null) {
          if (s.getMaxProperties() == null) {
            problems.add(path + ": map without maxProperties");
          }
          walk(path + "{}", s.getAdditionalProperties().getSchema(), problems);
        }
        if (s.getProperties() != null) {
          for (Map.Entry<String, JSONSchemaProps> e : s.getProperties().entrySet()) {
            walk(path + "." + e.getKey(), e.getValue(), problems);
          }
        } else if (s.getAdditionalProperties() == null) {
          problems.add(path + ": object without properties");
        }
      }
      case "boolean", "int-or-string" -> {}
      default -> problems.add(path + ": unknown type " + type);
    }
  }
}
