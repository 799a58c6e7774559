package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which members a reading of the real node's cluster counts as able to acknowledge a write. */
class PodWritableSamplerTest {

  private static final List<String> MEMBERS = List.of("c-0", "c-1", "c-2");

  private static String replicaOf(String primary) {
    return "*************************** 1. row ***************************\n"
        + "                Slave_IO_State: Waiting for master to send event\n"
        + "                   Master_Host: "
        + primary
        + ".c-headless.chaos-db.svc\n"
        + "              Slave_IO_Running: Yes\n";
  }

  @Test
  void aPrimaryWithAConnectedReplicaIsWritableAndReplicasAreNot() {
    String out =
        "@@ c-0\n0\t1\n@@ c-1\n1\t0\n" + replicaOf("c-0") + "@@ c-2\n1\t0\n" + replicaOf("c-0");

    assertThat(PodWritableSampler.writable(PodWritableSampler.parse(out, MEMBERS)))
        .containsExactly("c-0");
  }

  @Test
  void anOldPrimaryThatLostItsReplicasAcknowledgesNothingButTwoFedPrimariesDo() {
    // c-0 came back writable after a failover to c-1: semi-sync on, nobody receives from it.
    String stale = "@@ c-0\n0\t1\n@@ c-1\n0\t1\n@@ c-2\n1\t0\n" + replicaOf("c-1");
    assertThat(PodWritableSampler.writable(PodWritableSampler.parse(stale, MEMBERS)))
        .containsExactly("c-1");

    String split =
        "@@ c-0\n0\t1\n@@ c-1\n0\t1\n" + replicaOf("c-0") + "@@ c-2\n1\t0\n" + replicaOf("c-1");
    assertThat(PodWritableSampler.writable(PodWritableSampler.parse(split, MEMBERS)))
        .containsExactly("c-0", "c-1");
  }

  @Test
  void aMemberThatDidNotAnswerOrStoppedReceivingCountsForNothing() {
    String out =
        "@@ c-0\n@@ c-1\n0\t0\n@@ c-2\n1\t0\n"
            + replicaOf("c-1").replace("Slave_IO_Running: Yes", "Slave_IO_Running: Connecting");
    var readings = PodWritableSampler.parse(out, MEMBERS);

    assertThat(readings.get("c-0").readOnly()).isNull();
    assertThat(readings.get("c-2").receivingFrom()).isNull();
    // Semi-sync off: a lone writable member acknowledges on its own.
    assertThat(PodWritableSampler.writable(readings)).containsExactly("c-1");
  }
}
