package dev.bosun.common.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestAnnotationsTest {

  @Test
  void testsTheValueBeforeRemovingTheKeyWithItsPathEscaped() {
    @SuppressWarnings("unchecked")
    List<Object> ops =
        Serialization.unmarshal(
            RequestAnnotations.removeIfStillPatch("mysql.bosun.dev/re~build", "db-2"), List.class);
    String path = "/metadata/annotations/mysql.bosun.dev~1re~0build";
    assertThat(ops)
        .containsExactly(
            Map.of("op", "test", "path", path, "value", "db-2"),
            Map.of("op", "remove", "path", path));
  }
}
