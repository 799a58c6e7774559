package dev.bosun.etcd.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Whether a NOSPACE recovery got under the quota, and what is said when it did not. */
class NoSpaceQuotaTest {

  static final long MIB = 1_048_576;

  @Test
  void recoveryDisarmsOnlyWithRoomUnderTheQuota() {
    assertThat(NoSpaceQuota.fits(Map.of("c-0", 100_000L, "c-1", 120_000L), MIB)).isTrue();
    // Live data that alone fills the quota: disarming would let the next writes raise it again.
    assertThat(NoSpaceQuota.fits(Map.of("c-0", 100_000L, "c-1", 1_000_000L), MIB)).isFalse();
    assertThat(NoSpaceQuota.fits(Map.of("c-0", 950_000L), MIB)).isFalse();
  }

  @Test
  void theQuotaIsTheSpecsOrEtcdsDefault() {
    assertThat(NoSpaceQuota.of(null)).isEqualTo(2L * 1024 * MIB);
    assertThat(NoSpaceQuota.of(MIB)).isEqualTo(MIB);
  }

  @Test
  void theStopIsASentenceNamingTheLargestMemberAndWhatToDo() {
    Map<String, Long> after = new LinkedHashMap<>();
    after.put("c-0", 990_000L);
    after.put("c-1", 1_000_000L);
    assertThat(NoSpaceQuota.stopped(after, MIB))
        .isEqualTo(
            "NOSPACE recovery stopped: after compaction and defragmentation the database of c-1"
                + " still holds 1000000 bytes of live data, 95 % of its 1048576-byte quota, so the"
                + " alarm stays raised and writes keep failing. Delete keys (deletes and reads"
                + " still work) or raise spec.storage.quotaBackendBytes; the operator tries again"
                + " after the next change to the spec");
  }
}
