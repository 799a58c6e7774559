package dev.bosun.etcd.plan;

import java.util.List;

/** The one thing the planner wants done next, with the reason a person reads in the status. */
public sealed interface Step {

  /** CamelCase reason for conditions and Events. */
  String reason();

  /** What and why, for a person. */
  String message();

  /** Whether the step changes the cluster's membership or its members (Scaling/Upgrading). */
  default boolean changes() {
    return true;
  }

  /** Start a new cluster with its first member (the others join as learners). */
  record Bootstrap(String member) implements Step {
    public String reason() {
      return "Bootstrapping";
    }

    public String message() {
      return "starting the first member " + member;
    }
  }

  /** Recreate the Pods of members whose Pod is gone but whose volume holds their data. */
  record RecreatePods(List<String> members) implements Step {
    public String reason() {
      return "RecreatingPods";
    }

    public String message() {
      return "recreating the Pods of " + String.join(", ", members) + " on their own volumes";
    }
  }

  /**
   * Start the members of the cluster that kept volumes hold, on those volumes: the EtcdCluster was
   * deleted with its volumes kept and created again, so nothing recorded a cluster ID but the
   * volumes' own stamps.
   *
   * @param members every kept volume's member, in member order
   * @param unstamped those whose volume carries no stamp: their member never answered (named in the
   *     message; etcd's member list decides them once the others answer)
   */
  record ResumeCluster(List<String> members, String clusterId, List<String> unstamped)
      implements Step {
    public ResumeCluster {
      members = List.copyOf(members);
      unstamped = List.copyOf(unstamped);
    }

    public String reason() {
      return "ResumingCluster";
    }

    public String message() {
      String resuming =
          "the kept volumes of "
              + String.join(", ", members)
              + " hold etcd cluster "
              + clusterId
              + ": starting its members on them";
      if (unstamped.isEmpty()) {
        return resuming;
      }
      return resuming
          + " ("
          + String.join(", ", unstamped)
          + " never answered before the delete: etcd's member list decides whether "
          + (unstamped.size() == 1 ? "it belongs" : "they belong")
          + ")";
    }
  }

  /** Add a member as a non-voting learner, then start its Pod. */
  record AddLearner(String member) implements Step {
    public String reason() {
      return "AddingMember";
    }

    public String message() {
      return "adding " + member + " as a learner";
    }
  }

  /**
   * Create the volume and Pod of a learner etcd lists that never started and has neither: the
   * operator stopped between adding it and creating them. It holds no data, so it is resumed.
   */
  record ResumeLearner(String member) implements Step {
    public String reason() {
      return "ResumingLearner";
    }

    public String message() {
      return "creating the volume and Pod of learner "
          + member
          + ", which was added to etcd before the operator stopped and never started";
    }
  }

  /** Promote a learner that has caught up to a voter. */
  record Promote(String member, long id) implements Step {
    public String reason() {
      return "PromotingMember";
    }

    public String message() {
      return "promoting learner " + member + " to a voting member";
    }
  }

  /** Move leadership away from a member about to be removed or restarted. */
  record MoveLeader(String from, long fromId, String to, long toId, String why) implements Step {
    public String reason() {
      return "MovingLeader";
    }

    public String message() {
      return "moving leadership from " + from + " to " + to + " before " + why;
    }
  }

  /** Why a member is removed. */
  enum RemovalCause {
    ScaleDown,
    UnexpectedMember,
    DataLost,
    /** A learner that is not running is not needed any more: the size went back. */
    LearnerNotNeeded,
    /** A learner whose Pod did not run within {@link MembershipPlanner#LEARNER_START_DEADLINE}. */
    LearnerNeverStarted
  }

  /** Remove a member from the cluster through the etcd API, then delete its Pod (and volume). */
  record RemoveMember(String member, long id, RemovalCause cause) implements Step {
    public String reason() {
      return switch (cause) {
        case ScaleDown -> "RemovingMember";
        case UnexpectedMember -> "RemovingUnexpectedMember";
        case DataLost -> "ReplacingLostMember";
        case LearnerNotNeeded -> "RemovingUnstartedLearner";
        case LearnerNeverStarted -> "LearnerNeverStarted";
      };
    }

    public String message() {
      String who = member.isEmpty() ? "member " + Long.toHexString(id) : member;
      return switch (cause) {
        case ScaleDown -> "removing " + who + " to scale down";
        case UnexpectedMember -> "removing " + who + ": it is not a member this cluster created";
        case DataLost -> "removing " + who + ": its volume is gone, a new member will replace it";
        case LearnerNotNeeded ->
            "removing learner " + who + ", which is not running: the size no longer needs it";
        case LearnerNeverStarted ->
            "removing learner "
                + who
                + ": its Pod has not run for "
                + MembershipPlanner.LEARNER_START_DEADLINE.toMinutes()
                + " minutes (unschedulable or failing); a new learner is added in its place";
      };
    }
  }

  /** Delete the Pod and volume of a member that is no longer in the cluster. */
  record DeleteResources(String member) implements Step {
    public String reason() {
      return "CleaningUp";
    }

    public String message() {
      return "deleting the Pod of " + member + ", which is no longer a member";
    }
  }

  /** Restart a member's Pod on a new etcd version, keeping its volume. */
  record Upgrade(String member, String from, String to) implements Step {
    public String reason() {
      return "UpgradingMember";
    }

    public String message() {
      return "upgrading " + member + " from " + from + " to " + to;
    }
  }

  /** Nothing may be done now; look again later. */
  record Wait(String reason, String message) implements Step {
    public boolean changes() {
      return false;
    }
  }

  /** Fewer healthy voters than quorum: no destructive action at all. */
  record QuorumLost(String message) implements Step {
    public String reason() {
      return "QuorumLost";
    }

    public boolean changes() {
      return false;
    }
  }

  /**
   * No leader, but a majority of voters answered and runs on its own data: the members cannot reach
   * each other. Reported with the likely causes; never removed, replaced or restored.
   */
  record NoLeader(String message) implements Step {
    /** Degraded's reason: what a person should look at. */
    public static final String CAUSE = "MembersCannotReachEachOther";

    public String reason() {
      return "NoLeader";
    }

    public boolean changes() {
      return false;
    }
  }

  /**
   * Fewer healthy voters than quorum, but no evidence that quorum is lost: the operator cannot
   * reach members Kubernetes reports running (it may be cut off from them). Nothing is changed.
   */
  record MembersUnseen(String message) implements Step {
    public String reason() {
      return "MembersUnreachable";
    }

    public boolean changes() {
      return false;
    }
  }

  /** The cluster is what the spec asks for. */
  record Converged() implements Step {
    public String reason() {
      return "Converged";
    }

    public String message() {
      return "all members healthy";
    }

    public boolean changes() {
      return false;
    }
  }
}
