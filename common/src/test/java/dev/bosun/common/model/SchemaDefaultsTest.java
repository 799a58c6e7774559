package dev.bosun.common.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaDefaultsTest {

  /** The shape of a generated enum: Java names that differ from the schema's values. */
  enum Scheme {
    @JsonProperty("HTTP")
    HTTP,
    @JsonProperty("HTTPS")
    HTTPS
  }

  enum PathType {
    @JsonProperty("Prefix")
    PREFIX,
    @JsonProperty("ImplementationSpecific")
    IMPLEMENTATIONSPECIFIC
  }

  /** The shape of a generated object with a default of its own. */
  public static class Probe {
    private Scheme scheme = SchemaDefaults.parse("\"HTTP\"", Scheme.class);
    private Integer port;

    public Scheme getScheme() {
      return scheme;
    }

    public void setScheme(Scheme scheme) {
      this.scheme = scheme;
    }

    public Integer getPort() {
      return port;
    }

    public void setPort(Integer port) {
      this.port = port;
    }
  }

  @Test
  void readsWhatFabric8sUnmarshalReads() {
    for (var sample :
        List.<Map.Entry<String, Class<?>>>of(
            Map.entry("\"HTTP\"", Scheme.class),
            Map.entry("\"Prefix\"", PathType.class),
            Map.entry("\"ClusterIP\"", String.class),
            Map.entry("8080", Integer.class),
            Map.entry("true", Boolean.class),
            Map.entry("[\"ALL\"]", List.class))) {
      assertThat(SchemaDefaults.parse(sample.getKey(), sample.getValue()))
          .as(sample.getKey())
          .isEqualTo(Serialization.unmarshal(sample.getKey(), sample.getValue()));
    }
    assertThat(SchemaDefaults.parse("{}", Probe.class).getScheme()).isEqualTo(Scheme.HTTP);
    assertThat(SchemaDefaults.parse("{\"port\":80}", Probe.class).getPort()).isEqualTo(80);
  }

  @Test
  void aValueNobodyCanChangeIsParsedOnce() {
    assertThat(SchemaDefaults.parse("\"ImplementationSpecific\"", PathType.class))
        .isSameAs(SchemaDefaults.parse("\"ImplementationSpecific\"", PathType.class))
        .isEqualTo(PathType.IMPLEMENTATIONSPECIFIC);
  }

  @Test
  void aDefaultACallerCanChangeIsNewEachTime() {
    @SuppressWarnings("unchecked")
    List<String> first = SchemaDefaults.parse("[\"ALL\"]", List.class);
    first.add("NET_RAW");

    assertThat(SchemaDefaults.parse("[\"ALL\"]", List.class)).containsExactly("ALL");
    assertThat(SchemaDefaults.parse("{}", Probe.class))
        .isNotSameAs(SchemaDefaults.parse("{}", Probe.class));
  }

  @Test
  void aDefaultThatIsNotItsTypeNamesBoth() {
    assertThatThrownBy(() -> SchemaDefaults.parse("\"SPDY\"", Scheme.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the schema default \"SPDY\" is not a Scheme");
  }
}
