package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnavailableMembersTest {

  @Test
  void aMissingANotReadyAndADeletingMemberAreEachUnavailable() {
    assertThat(UnavailableMembers.unavailable(List.of(member("a", true, false)), 3)).isEqualTo(2);
    assertThat(
            UnavailableMembers.unavailable(
                List.of(
                    member("a", true, false), member("b", false, false), member("c", true, true)),
                3))
        .isEqualTo(2);
    assertThat(
            UnavailableMembers.unavailable(
                List.of(
                    member("a", true, false), member("b", true, false), member("c", true, false)),
                3))
        .isZero();
  }

  private static Pod member(String name, boolean ready, boolean deleting) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withDeletionTimestamp(deleting ? "2026-11-27T17:00:00Z" : null)
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }
}
