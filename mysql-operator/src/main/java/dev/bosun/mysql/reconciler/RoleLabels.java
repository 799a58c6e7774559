package dev.bosun.mysql.reconciler;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.InstanceState;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which pods' role label must change so the primary and replicas Services follow the topology, in
 * the order to change them: the label leaves the old primary before another pod gets it, so the
 * primary Service never selects two pods (one of them fenced) at once.
 */
final class RoleLabels {

  /** Set the role label of {@code pod} to {@code role}; a null role removes it. */
  record Change(String pod, String role) {}

  private RoleLabels() {}

  /**
   * The changes from {@code current} (pod -> its label, null when none) to {@code wanted} (pod ->
   * its role, null for none); pods not in {@code wanted} lose the label.
   */
  static List<Change> changes(Map<String, String> wanted, Map<String, String> current) {
    return current.keySet().stream()
        .filter(pod -> !Objects.equals(wanted.get(pod), current.get(pod)))
        .map(pod -> new Change(pod, wanted.get(pod)))
        .sorted(
            Comparator.comparingInt((Change ch) -> order(current.get(ch.pod()), ch.role()))
                .thenComparing(Change::pod))
        .toList();
  }

  /**
   * The role each observed member should be labelled with (null: none). What was observed precedes
   * this round's step: a member it just promoted takes writes now (labelled at once, not a poll
   * later, so clients reach it), and the replicas it repointed keep their label until the next
   * round observes them.
   */
  static Map<String, String> wanted(
      TopologyController.Tick tick, Map<String, Address> addresses, Map<String, String> current) {
    String primary = tick.record().primary();
    Address primaryAddress = primary == null ? null : addresses.get(primary);
    String promoted = tick.promoted();
    Map<String, String> roles = new HashMap<>();
    for (InstanceState i : tick.observed()) {
      String role = null;
      boolean errant = tick.plan().errant().contains(i.name());
      if (i.name().equals(primary) && (i.writable() || i.name().equals(promoted))) {
        role = MySQLOperator.PRIMARY;
      } else if (primaryAddress != null && i.replicatesFrom(primaryAddress) && !errant) {
        role = MySQLOperator.REPLICA;
      } else if (promoted != null
          && i.reachable()
          && !errant
          && MySQLOperator.REPLICA.equals(current.get(i.name()))) {
        role = MySQLOperator.REPLICA;
      }
      roles.put(i.name(), role);
    }
    return roles;
  }

  /** The old primary first, the new primary last, everything else between. */
  private static int order(String from, String to) {
    if (MySQLOperator.PRIMARY.equals(from)) {
      return 0;
    }
    return MySQLOperator.PRIMARY.equals(to) ? 2 : 1;
  }

  /** The JSON merge patch that sets (or, for null, removes) the role label. */
  static String patch(String role) {
    ObjectNode labels = JsonNodeFactory.instance.objectNode();
    if (role == null) {
      labels.putNull(MySQLOperator.ROLE);
    } else {
      labels.put(MySQLOperator.ROLE, role);
    }
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    patch.putObject("metadata").set("labels", labels);
    return patch.toString();
  }
}
