package dev.bosun.etcd.chaos;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The etcd calls an operator death can be placed at, each before it is sent or once its answer is
 * in: the membership changes, a leader move and a defragmentation, by full gRPC method name.
 */
final class EtcdBoundaries {

  private static final Map<String, String> CALLS = new LinkedHashMap<>();

  static {
    CALLS.put("adding a member", "etcdserverpb.Cluster/MemberAdd");
    CALLS.put("promoting a learner", "etcdserverpb.Cluster/MemberPromote");
    CALLS.put("removing a member", "etcdserverpb.Cluster/MemberRemove");
    CALLS.put("moving the leader", "etcdserverpb.Maintenance/MoveLeader");
    CALLS.put("defragmenting a member", "etcdserverpb.Maintenance/Defragment");
  }

  /** Every boundary: "before …" and "after …" each call. */
  static final List<String> ALL =
      CALLS.keySet().stream()
          .flatMap(name -> List.of("before " + name, "after " + name).stream())
          .toList();

  private EtcdBoundaries() {}

  /** Whether {@code boundary} is one of these (not an API server request's). */
  static boolean isEtcd(String boundary) {
    return ALL.contains(boundary);
  }

  /** The calls the boundary named {@code boundary} cuts at. */
  static Predicate<String> call(String boundary) {
    String method = CALLS.get(boundary.substring(boundary.indexOf(' ') + 1));
    if (method == null) {
      throw new IllegalArgumentException("no such boundary: " + boundary);
    }
    return method::equals;
  }
}
