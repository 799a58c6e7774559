package dev.bosun.common.dependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.WriteCounter;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The common child writer on the real API server: writes on change only, never over others'. */
@ExtendWith(ControlPlaneExtension.class)
class ApplierIT {

  private static final String HASH = "test.bosun.dev/applied-hash";

  private final WriteCounter writes = new WriteCounter();
  private KubernetesClient client;
  private String ns;
  private ConfigMap owner;
  private Applier<ConfigMap> applier;

  @BeforeEach
  void setUp() {
    client =
        ControlPlaneExtension.controlPlane()
            .adminClient(b -> b.addOrReplaceInterceptor("writes", writes));
    ns = Crds.namespace(client, "applier-" + System.nanoTime() % 100000, Map.of(), Map.of());
    owner = client.configMaps().inNamespace(ns).resource(configMap("owner", Map.of())).create();
    applier = new Applier<>(client, ChildCache.none(), "bosun-test", HASH);
  }

  @AfterEach
  void tearDown() {
    client.namespaces().withName(ns).delete();
    client.close();
  }

  private ConfigMap configMap(String name, Map<String, String> data) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(ns)
        .endMetadata()
        .withData(data)
        .build();
  }

  private ConfigMap child(Map<String, String> data) {
    ConfigMap child = configMap("child", data);
    child.getMetadata().setOwnerReferences(List.of(ControllerOwner.of(owner)));
    return child;
  }

  private ConfigMap live() {
    return client.configMaps().inNamespace(ns).withName("child").get();
  }

  @Test
  void writesOnlyWhatChanged() throws Exception {
    assertThat(applier.apply(owner, child(Map.of("k", "1")))).isEqualTo(Applier.Result.APPLIED);
    assertThat(live().getData()).containsEntry("k", "1");

    int before = writes.count();
    assertThat(applier.apply(owner, child(Map.of("k", "1")))).isEqualTo(Applier.Result.UNCHANGED);
    assertThat(writes.since(before)).isEmpty();

    assertThat(applier.apply(owner, child(Map.of("k", "2")))).isEqualTo(Applier.Result.APPLIED);
    assertThat(live().getData()).containsEntry("k", "2");
  }

  @Test
  void putsBackWhatSomeoneElseChangedWhenAskedTo() throws Exception {
    applier.apply(owner, child(Map.of("k", "1")));
    client
        .configMaps()
        .inNamespace(ns)
        .withName("child")
        .edit(
            c -> {
              c.getData().put("k", "tampered");
              return c;
            });

    assertThat(applier.apply(owner, child(Map.of("k", "1")))).isEqualTo(Applier.Result.UNCHANGED);
    assertThat(live().getData()).containsEntry("k", "tampered");

    assertThat(
            applier.apply(
                owner,
                child(Map.of("k", "1")),
                (live, desired) -> Objects.equals(live.getData(), desired.getData())))
        .isEqualTo(Applier.Result.APPLIED);
    assertThat(live().getData()).containsEntry("k", "1");
  }

  @Test
  void neverTouchesSomeoneElsesObject() {
    client
        .configMaps()
        .inNamespace(ns)
        .resource(configMap("child", Map.of("k", "theirs")))
        .create();

    assertThatThrownBy(() -> applier.apply(owner, child(Map.of("k", "1"))))
        .isInstanceOf(Applier.ForeignObjectException.class)
        .hasMessageContaining(
            "ConfigMap child already exists and is not managed by this ConfigMap");
    assertThatThrownBy(() -> applier.create(owner, child(Map.of("k", "1"))))
        .isInstanceOf(Applier.ForeignObjectException.class);
    assertThat(live().getData()).containsEntry("k", "theirs");
  }

  @Test
  void createLeavesTheOwnersObjectAsItIs() throws Exception {
    assertThat(applier.create(owner, child(Map.of("k", "1")))).isEqualTo(Applier.Result.APPLIED);
    int before = writes.count();
    assertThat(applier.create(owner, child(Map.of("k", "2")))).isEqualTo(Applier.Result.UNCHANGED);
    assertThat(writes.since(before)).isEmpty();
    assertThat(live().getData()).containsEntry("k", "1");
    assertThat(live().getMetadata().getAnnotations()).doesNotContainKey(HASH);
  }

  @Test
  void withoutAHashEveryApplyWritesAndOwnershipIsTheCallers() throws Exception {
    Applier<ConfigMap> planned =
        new Applier<>(
            client,
            ChildCache.none(),
            "bosun-test",
            null,
            (o, live) ->
                live.getMetadata().getLabels() != null
                    && "yes".equals(live.getMetadata().getLabels().get("copy")));
    ConfigMap copy = configMap("child", Map.of("k", "1"));
    copy.getMetadata().setLabels(Map.of("copy", "yes"));
    planned.apply(owner, copy);
    int before = writes.count();
    assertThat(planned.apply(owner, copy)).isEqualTo(Applier.Result.APPLIED);
    assertThat(writes.since(before)).hasSize(1);
    assertThat(live().getMetadata().getAnnotations()).doesNotContainKey(HASH);

    client.configMaps().inNamespace(ns).resource(configMap("other", Map.of())).create();
    ConfigMap other = configMap("other", Map.of("k", "1"));
    other.getMetadata().setLabels(Map.of("copy", "yes"));
    assertThatThrownBy(() -> planned.apply(owner, other))
        .isInstanceOf(Applier.ForeignObjectException.class);
  }
}
