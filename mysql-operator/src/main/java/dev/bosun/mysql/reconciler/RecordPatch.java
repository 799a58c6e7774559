package dev.bosun.mysql.reconciler;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;

/**
 * The JSON merge patch that stores a topology record in a MySQLCluster's status in one request: the
 * record's fields only, each one present (an absent value as an explicit null, which removes it),
 * so nothing else in the status is touched and no read of the object is needed first.
 */
final class RecordPatch {

  /** The status fields {@link ClusterStatusBuilder#writeRecord} owns. */
  static final List<String> FIELDS =
      List.of(
          "primary",
          "previousPrimary",
          "promotionGtid",
          "restoredFrom",
          "lastFailoverTime",
          "promotionIntent",
          "rebuild");

  private RecordPatch() {}

  /** {@code {"status": {the record's fields}}}. */
  static String of(TopologyRecord rec) {
    MySQLClusterStatus status = new MySQLClusterStatus();
    ClusterStatusBuilder.writeRecord(status, rec);
    ObjectNode written = Serialization.jsonMapper().valueToTree(status);
    ObjectNode fields = JsonNodeFactory.instance.objectNode();
    for (String f : FIELDS) {
      fields.set(f, written.hasNonNull(f) ? written.get(f) : JsonNodeFactory.instance.nullNode());
    }
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    patch.set("status", fields);
    return patch.toString();
  }
}
