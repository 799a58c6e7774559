package dev.bosun.etcd.plan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What the operator knows about quorum, as opposed to what it merely cannot see. Every voter is
 * healthy, down by Kubernetes' own account (Pod or volume gone, etcd container not running), says
 * it has no leader (it answered, so it runs on its data), or unseen: the operator cannot reach it
 * although Kubernetes reports it running. Quorum counts as lost only when the members that are down
 * leave too few voters that could still form a majority (the healthy, leaderless and unseen ones):
 * a majority of members running on their own data is never lost, only unable to reach each other
 * ({@link Verdict#LEADERLESS}), and a cluster the operator is merely cut off from is {@link
 * Verdict#UNSEEN}. Nothing destructive may follow from either.
 *
 * @param verdict held, lost on evidence, or unknown
 * @param voters the number of voting members
 * @param healthy voters that answered and follow the common leader
 * @param leaderless voters that answered and said they have no leader
 * @param down voters Kubernetes reports not running (or without Pod or volume)
 * @param unseen voters that did not answer although Kubernetes reports them running
 */
public record QuorumEvidence(
    Verdict verdict,
    int voters,
    int healthy,
    List<String> leaderless,
    List<String> down,
    List<String> unseen) {

  /** The three answers the evidence allows. */
  public enum Verdict {
    /** A majority of voters is healthy. */
    HELD,
    /** Too few voters are not known to be leaderless or down to form a majority. */
    LOST,
    /**
     * A majority answered, runs on its data and has no leader: the members cannot reach each other
     * (peer TLS, a network policy, clocks), and nothing of theirs is lost.
     */
    LEADERLESS,
    /** Neither: the operator cannot see enough members to tell. */
    UNSEEN
  }

  public QuorumEvidence {
    leaderless = List.copyOf(leaderless);
    down = List.copyOf(down);
    unseen = List.copyOf(unseen);
  }

  /** Weighs the members of cluster {@code cluster} against what Kubernetes holds for them. */
  public static QuorumEvidence of(
      String cluster, List<ObservedMember> members, Map<String, MemberResources> resources) {
    int voters = 0;
    int healthy = 0;
    List<String> leaderless = new ArrayList<>();
    List<String> down = new ArrayList<>();
    List<String> unseen = new ArrayList<>();
    List<ObservedMember> ordered = new ArrayList<>(members);
    ordered.sort(
        Comparator.comparing(
                (ObservedMember m) ->
                    MemberNames.index(cluster, m.name()).orElse(Integer.MAX_VALUE))
            .thenComparing(ObservedMember::name));
    for (ObservedMember m : ordered) {
      if (!m.voter()) {
        continue;
      }
      voters++;
      String name = m.name().isEmpty() ? m.hexId() : m.name();
      MemberResources r = resources.get(m.name());
      if (m.healthy()) {
        healthy++;
      } else if (MemberNames.isOurs(cluster, m.name()) && (r == null || r.down())) {
        // Gone by Kubernetes' account even if it still answered: its Pod or volume is going.
        down.add(name);
      } else if (m.leaderless()) {
        leaderless.add(name);
      } else {
        // Not ours (no Pod to ask about) or running by Kubernetes' account: no evidence either way.
        unseen.add(name);
      }
    }
    int quorum = QuorumGuard.quorum(voters);
    Verdict verdict;
    if (voters > 0 && healthy >= quorum) {
      verdict = Verdict.HELD;
    } else if (voters > 0 && voters - down.size() < quorum) {
      // Only the members Kubernetes reports gone are evidence: every other one may still be part
      // of a working majority once it reaches the others.
      verdict = Verdict.LOST;
    } else if (leaderless.size() >= quorum || unseen.isEmpty()) {
      // The operator sees enough of them to tell: they run, they answer, they elect no leader.
      verdict = Verdict.LEADERLESS;
    } else {
      verdict = Verdict.UNSEEN;
    }
    return new QuorumEvidence(verdict, voters, healthy, leaderless, down, unseen);
  }

  /** What was seen, for a person. */
  public String message() {
    StringBuilder s =
        new StringBuilder()
            .append(healthy)
            .append(" of ")
            .append(voters)
            .append(" voting members are healthy, ")
            .append(QuorumGuard.quorum(voters))
            .append(" are needed");
    if (!leaderless.isEmpty()) {
      s.append("; reporting no leader: ").append(String.join(", ", leaderless));
    }
    if (!down.isEmpty()) {
      s.append("; down by Kubernetes' account (Pod or volume gone, or etcd not running): ")
          .append(String.join(", ", down));
    }
    if (!unseen.isEmpty()) {
      s.append("; the operator cannot reach ")
          .append(String.join(", ", unseen))
          .append(" although Kubernetes reports them running");
    }
    return switch (verdict) {
      case HELD -> s.toString();
      case LOST -> s + ": quorum is lost; no member is removed or replaced until it returns";
      case LEADERLESS ->
          s
              + ": a majority runs on its own data but has no leader, so the members cannot reach"
              + " each other. Likely causes: peer TLS (an expired certificate, or a CA or name"
              + " that does not match the peer URLs), a NetworkPolicy or firewall blocking the"
              + " peer port 2380, or clocks far apart between nodes. Nothing is removed, replaced"
              + " or restored: no data is lost, and the cluster elects a leader by itself once the"
              + " members reach each other";
      case UNSEEN ->
          s
              + ": the operator cannot see enough members to tell whether the cluster has quorum;"
              + " nothing is changed while it cannot see them";
    };
  }
}
