package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.plan.PromotionIntent;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one-request status write of a topology record: its fields, absent ones as nulls. */
class RecordPatchTest {

  private static JsonNode status(TopologyRecord rec) throws Exception {
    JsonNode patch = new ObjectMapper().readTree(RecordPatch.of(rec));
    assertThat(patch.fieldNames()).toIterable().containsExactly("status");
    return patch.get("status");
  }

  @Test
  void anIntentIsWrittenWithTheRestOfTheRecordAndNothingElse() throws Exception {
    JsonNode s =
        status(
            new TopologyRecord(
                "db-0", null, "0-1-5", null, null, new PromotionIntent("db-1", "db-0", "0-1-9")));
    assertThat(s.fieldNames()).toIterable().containsExactlyInAnyOrderElementsOf(RecordPatch.FIELDS);
    assertThat(s.get("primary").asText()).isEqualTo("db-0");
    assertThat(s.get("promotionGtid").asText()).isEqualTo("0-1-5");
    assertThat(s.get("promotionIntent").get("candidate").asText()).isEqualTo("db-1");
    assertThat(s.get("promotionIntent").get("from").asText()).isEqualTo("db-0");
    assertThat(s.get("promotionIntent").get("point").asText()).isEqualTo("0-1-9");
    // A merge patch removes what is null: the cleared fields must be there, as nulls.
    for (String cleared : List.of("previousPrimary", "restoredFrom", "lastFailoverTime")) {
      assertThat(s.get(cleared).isNull()).as(cleared).isTrue();
    }
  }

  @Test
  void aFinishedPromotionClearsTheIntent() throws Exception {
    JsonNode s =
        status(
            new TopologyRecord(
                "db-1", "db-0", "0-1-9", Instant.parse("2026-11-24T03:00:00Z"), "loading", null));
    assertThat(s.get("promotionIntent").isNull()).isTrue();
    assertThat(s.get("lastFailoverTime").asText()).isEqualTo("2026-11-24T03:00:00Z");
    assertThat(s.get("restoredFrom").asText()).isEqualTo("loading");
  }
}
