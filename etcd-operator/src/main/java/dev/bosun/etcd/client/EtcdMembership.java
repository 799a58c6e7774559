package dev.bosun.etcd.client;

import io.etcd.jetcd.api.DefragmentRequest;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.api.StatusResponse;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.cluster.MemberAddResponse;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The etcd calls the operator makes, each with a deadline (jetcd has none by default and a call to
 * a cluster without quorum would hang).
 */
public final class EtcdMembership {

  /** How long a member may take to report its status before it counts as unhealthy. */
  public static final Duration STATUS_TIMEOUT = Duration.ofSeconds(1);

  /** Deadline of membership changes, which need a round of consensus. */
  public static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(5);

  private final EtcdClients clients;

  public EtcdMembership(EtcdClients clients) {
    this.clients = clients;
  }

  /** The member list, from the first endpoint that answers; empty when none does. */
  public Optional<MemberList> list(List<URI> endpoints) {
    for (URI endpoint : endpoints) {
      try {
        var response =
            await(() -> clients.of(endpoint).getClusterClient().listMember(), STATUS_TIMEOUT);
        List<Member> members = response.getMembers();
        return Optional.of(
            new MemberList(
                response.getHeader().getClusterId(),
                members.stream().map(EtcdMembership::member).toList()));
      } catch (EtcdException e) {
        // try the next one
      }
    }
    return Optional.empty();
  }

  /**
   * The member list as of now, through {@code via}; empty when it does not answer in time. etcd
   * serves the member list from the answering member's own store, so a member that lags behind (cut
   * off from the leader, or slow to apply) may list a membership that is no longer true. A
   * linearizable read first makes {@code via} apply everything committed before the read began,
   * membership changes included, so the list it serves next is at least that recent. (etcd 3.4 has
   * no linearizable member list of its own.)
   */
  public Optional<MemberList> linearizableList(URI via) {
    try {
      await(
          () -> clients.of(via).getKVClient().get(io.etcd.jetcd.ByteSequence.from(new byte[] {0})),
          STATUS_TIMEOUT);
    } catch (EtcdException e) {
      return Optional.empty();
    }
    return list(List.of(via));
  }

  /**
   * The status of every endpoint, asked in parallel; an endpoint that did not answer in time is
   * missing from the result. Each call goes over the member's own reused channel with the timeout
   * as its deadline, so a member that does not answer leaves neither a call nor a channel behind.
   */
  public Map<URI, MemberStatus> status(List<URI> endpoints) {
    Map<URI, Future<StatusResponse>> calls = new LinkedHashMap<>();
    for (URI e : endpoints) {
      calls.computeIfAbsent(
          e, x -> member(x, STATUS_TIMEOUT).status(StatusRequest.getDefaultInstance()));
    }
    Map<URI, MemberStatus> result = new LinkedHashMap<>();
    calls.forEach(
        (endpoint, call) -> {
          try {
            // The deadline ends the call; waiting longer only covers a slow wake-up.
            StatusResponse s = await(call, STATUS_TIMEOUT.plus(STATUS_TIMEOUT));
            result.put(
                endpoint,
                new MemberStatus(
                    s.getHeader().getMemberId(),
                    s.getLeader(),
                    s.getVersion(),
                    s.getIsLearner(),
                    s.getRaftAppliedIndex(),
                    s.getErrorsList(),
                    s.getDbSize()));
          } catch (EtcdException e) {
            // no answer: unhealthy
          }
        });
    return result;
  }

  /** Maintenance calls to that very member, each ending by itself after {@code deadline}. */
  private MaintenanceGrpc.MaintenanceFutureStub member(URI endpoint, Duration deadline) {
    return MaintenanceGrpc.newFutureStub(clients.channel(endpoint))
        .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Adds a learner; returns the new member and the member list after the change (the new member's
   * name is still empty there: it gets one when it starts).
   */
  public AddedMember addLearner(URI via, URI peerUrl) {
    MemberAddResponse r =
        await(
            () -> clients.of(via).getClusterClient().addMember(List.of(peerUrl), true),
            CHANGE_TIMEOUT);
    return new AddedMember(
        member(r.getMember()), r.getMembers().stream().map(EtcdMembership::member).toList());
  }

  /** Promotes a learner; etcd refuses while it has not caught up. */
  public void promote(URI via, long id) {
    await(() -> clients.of(via).getClusterClient().promoteMember(id), CHANGE_TIMEOUT);
  }

  /** Removes a member. */
  public void remove(URI via, long id) {
    await(() -> clients.of(via).getClusterClient().removeMember(id), CHANGE_TIMEOUT);
  }

  /** Moves leadership; must be sent to the current leader. */
  public void moveLeader(URI leader, long to) {
    await(() -> clients.of(leader).getMaintenanceClient().moveLeader(to), CHANGE_TIMEOUT);
  }

  /** Streams a snapshot of the member's backend; returns its size in bytes. */
  public long snapshot(URI endpoint, OutputStream out, Duration timeout) {
    return await(() -> clients.of(endpoint).getMaintenanceClient().snapshot(out), timeout);
  }

  /** The revision the member serves now (stored with a snapshot). */
  public long revision(URI endpoint) {
    return await(
            () ->
                clients
                    .of(endpoint)
                    .getKVClient()
                    .get(io.etcd.jetcd.ByteSequence.from(new byte[] {0})),
            STATUS_TIMEOUT)
        .getHeader()
        .getRevision();
  }

  /** How long a member may take to defragment (it blocks the member while it runs). */
  public static final Duration DEFRAG_TIMEOUT = Duration.ofMinutes(2);

  /** Defragments one member's backend; returns its database size afterwards. */
  public long defragment(URI endpoint) {
    await(
        member(endpoint, DEFRAG_TIMEOUT).defragment(DefragmentRequest.getDefaultInstance()),
        DEFRAG_TIMEOUT);
    return await(
            member(endpoint, STATUS_TIMEOUT).status(StatusRequest.getDefaultInstance()),
            STATUS_TIMEOUT)
        .getDbSize();
  }

  /** Compacts the key space up to {@code revision} (through any voter: a consensus write). */
  public void compact(URI via, long revision) {
    await(() -> clients.of(via).getKVClient().compact(revision), CHANGE_TIMEOUT);
  }

  /** Disarms an alarm. */
  public void disarm(URI via, long memberId, String type) {
    await(
        () ->
            clients
                .of(via)
                .getMaintenanceClient()
                .alarmDisarm(
                    new io.etcd.jetcd.maintenance.AlarmMember(
                        memberId, io.etcd.jetcd.maintenance.AlarmType.valueOf(type))),
        CHANGE_TIMEOUT);
  }

  /** The member list and the ID of the cluster that answered. */
  public record MemberList(long clusterId, List<EtcdMember> members) {}

  /** A learner just added, and the membership it joined. */
  public record AddedMember(EtcdMember member, List<EtcdMember> members) {}

  private static EtcdMember member(Member m) {
    return new EtcdMember(m.getId(), m.getName(), m.getPeerURIs(), m.isLearner());
  }

  private static <T> T await(Supplier<CompletableFuture<T>> call, Duration timeout) {
    return await(call.get(), timeout);
  }

  private static <T> T await(Future<T> future, Duration timeout) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new EtcdException("etcd did not answer within " + timeout.toMillis() + " ms", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new EtcdException(cause.getMessage(), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EtcdException("interrupted", e);
    }
  }
}
