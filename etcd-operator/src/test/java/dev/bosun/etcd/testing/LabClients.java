package dev.bosun.etcd.testing;

import dev.bosun.common.testing.drill.ClientIdentity;
import dev.bosun.etcd.plan.ClusterRef;
import io.etcd.jetcd.Client;
import java.net.URI;
import java.util.List;
import java.util.stream.IntStream;

/** etcd clients whose traffic goes through a lab client identity, so partitions can cut them. */
public final class LabClients {

  private LabClients() {}

  /** A client through {@code identity} to the named members of {@code ref}. */
  public static Client of(
      LabAddressing addressing, ClientIdentity identity, ClusterRef ref, List<String> members) {
    URI[] endpoints =
        members.stream()
            .map(m -> addressing.via(identity, addressing.clientUrl(ref, m)))
            .toArray(URI[]::new);
    return Client.builder().endpoints(endpoints).keepaliveWithoutCalls(false).build();
  }

  /** The names of a cluster's first {@code n} members. */
  public static List<String> firstMembers(String cluster, int n) {
    return IntStream.range(0, n).mapToObj(i -> cluster + "-" + i).toList();
  }
}
