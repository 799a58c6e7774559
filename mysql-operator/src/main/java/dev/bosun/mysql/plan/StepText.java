package dev.bosun.mysql.plan;

/**
 * The words a person reads for a planned step: a CamelCase reason for conditions and a sentence for
 * their message. Never a record's rendering: every kind of step has its own sentence here.
 */
public final class StepText {

  private StepText() {}

  /** The condition reason of a step. */
  public static String reason(Step step) {
    if (step instanceof Step.Wait w) {
      return w.reason();
    }
    if (step instanceof Step.Blocked b) {
      return b.reason();
    }
    if (step instanceof Step.Attach) {
      return "AttachingReplica";
    }
    if (step instanceof Step.Detach) {
      return "DetachingExcludedMember";
    }
    if (step instanceof Step.Promote) {
      return "Promoting";
    }
    if (step instanceof Step.Failover) {
      return "FailingOver";
    }
    if (step instanceof Step.Switchover) {
      return "SwitchingOver";
    }
    if (step instanceof Step.Fence) {
      return "Fencing";
    }
    if (step instanceof Step.Restore) {
      return "Restoring";
    }
    if (step instanceof Step.RestoreDone) {
      return "Restored";
    }
    if (step instanceof Step.RestoreSkipped) {
      return "RestoreSkipped";
    }
    if (step instanceof Step.Rebuild) {
      return "Rebuilding";
    }
    if (step instanceof Step.RebuildDone) {
      return "Rebuilt";
    }
    if (step instanceof Step.ReplaceVolume) {
      return "ReplacingVolume";
    }
    if (step instanceof Step.SemiSync) {
      return "ConfiguringSemiSync";
    }
    if (step instanceof Step.Adopt) {
      return "AdoptingPrimary";
    }
    if (step instanceof Step.CheckContent) {
      return "ComparingData";
    }
    if (step instanceof Step.ContentChecked c) {
      return c.result().differences() == null ? "DataCompared" : "DataDiffers";
    }
    if (step instanceof Step.RecordServerStarts) {
      return "RecordingServerStarts";
    }
    return "Converged";
  }

  /** A sentence saying what the step does, or {@code otherwise} for a steady cluster. */
  public static String sentence(Step step, String otherwise) {
    if (step instanceof Step.Wait w) {
      return w.message();
    }
    if (step instanceof Step.Blocked b) {
      return b.message();
    }
    if (step instanceof Step.Detach d) {
      return "stopping "
          + d.instance()
          + " receiving from the primary "
          + d.primary()
          + ": it is kept out of the cluster, so it must not acknowledge commits";
    }
    if (step instanceof Step.Attach a) {
      return "attaching " + a.instance() + " as a replica of the primary " + a.primary();
    }
    if (step instanceof Step.Promote p) {
      return p.instance() + " " + promotion(p.why()) + (p.writable() ? "" : FENCED_UNTIL_COMPARED);
    }
    if (step instanceof Step.Failover f) {
      return "the primary "
          + f.oldPrimary()
          + " is unreachable; failing over to the most advanced of "
          + String.join(", ", f.candidates())
          + readOnlyFailover(f);
    }
    if (step instanceof Step.Switchover s) {
      return "moving the primary from " + s.from() + " to " + s.to() + switchover(s.why());
    }
    if (step instanceof Step.Fence f) {
      return f.instance() + " takes writes without being the primary; making it read-only";
    }
    return dataSentence(step, otherwise);
  }

  /** The sentence of a step that moves data: a restore, a rebuild, semi-sync, an adoption. */
  private static String dataSentence(Step step, String otherwise) {
    if (step instanceof Step.Restore r) {
      return "loading bootstrap.fromBackup into " + r.primary();
    }
    if (step instanceof Step.RestoreSkipped k) {
      return restoreSkipped(k);
    }
    if (step instanceof Step.RestoreDone d) {
      return "loaded " + d.location() + " into " + d.primary();
    }
    if (step instanceof Step.Rebuild r) {
      return "rebuilding " + r.instance() + " from a copy of " + r.source() + rebuild(r.why());
    }
    if (step instanceof Step.ReplaceVolume v) {
      return "giving "
          + v.instance()
          + " a new, empty volume because "
          + v.evidence()
          + "; the old volume is kept, and the member is rebuilt by copy once it starts";
    }
    if (step instanceof Step.RebuildDone d) {
      return d.failure() == null
          ? "the rebuild of " + d.instance() + " finished"
          : "the rebuild of " + d.instance() + " failed: " + d.failure();
    }
    if (step instanceof Step.SemiSync s) {
      return (s.on() ? "turning semi-sync on on the primary " : "turning semi-sync off on ")
          + s.primary();
    }
    if (step instanceof Step.Adopt a) {
      return a.instance() + " already takes writes; recording it as the primary";
    }
    if (step instanceof Step.CheckContent c) {
      return "comparing the data of "
          + c.replica()
          + " with the primary "
          + c.primary()
          + "'s"
          + " "
          + contentWhy(c);
    }
    if (step instanceof Step.ContentChecked c) {
      return "recording the comparison of " + c.result().check().replica() + "'s data";
    }
    if (step instanceof Step.RecordServerStarts r) {
      return "recording when the servers of " + String.join(", ", r.starts().keySet()) + " started";
    }
    return otherwise;
  }

  /** Why a comparison is made, in words: "because the server of db-2 restarted". */
  public static String contentWhy(Step.CheckContent c) {
    return switch (c.why()) {
      case "Restarted" -> "because the server of " + c.suspect() + " restarted";
      case "NeverCompared" -> "because the data of " + c.suspect() + " has never been compared";
      case "Disproved" ->
          "because "
              + c.suspect()
              + " was last found the same as a member since found to lack rows";
      default -> "because neither side's data is known good yet";
    };
  }

  /** Why fromBackup was not loaded. */
  public static String restoreSkipped(Step.RestoreSkipped k) {
    return "bootstrap.fromBackup was not loaded: "
        + String.join(", ", k.holding())
        + (k.holding().size() == 1 ? " already holds" : " already hold")
        + " data (a cluster created again over its kept volumes keeps them); a restore goes only"
        + " into empty members, so nothing was loaded over it";
  }

  /** What a primary promoted read-only waits for, after its subject. */
  private static final String UNTIL_COMPARED =
      " takes no writes until its data is compared with every other member's, since a crash"
          + " recovery may have lost rows a position claims";

  /** After a promotion that leaves the primary read-only. */
  public static final String FENCED_UNTIL_COMPARED = "; it" + UNTIL_COMPARED;

  /** Which candidates a failover promotes read-only, with its leading "; "; empty for none. */
  private static String readOnlyFailover(Step.Failover f) {
    if (f.readOnlyIfChosen().isEmpty()) {
      return "";
    }
    String who =
        f.readOnlyIfChosen().containsAll(f.candidates())
            ? "the one promoted"
            : String.join(" or ", f.readOnlyIfChosen()) + ", if promoted,";
    return "; " + who + UNTIL_COMPARED;
  }

  /** What a promotion's why means, after the member's name. */
  public static String promotion(String why) {
    return switch (why) {
      case "Bootstrap" -> "becomes the primary of the new cluster";
      case "FullClusterRestart" ->
          "becomes the primary after every member restarted: it holds the most transactions";
      case "RestartedPrimary" -> "is the primary that restarted; it takes writes again";
      case "FailedOverCompared" ->
          "was promoted read-only by the failover and its data is now compared with every other"
              + " member's; it takes writes";
      default -> "becomes the primary";
    };
  }

  /** What a switchover's why adds to "moving the primary from a to b", with its leading space. */
  public static String switchover(String why) {
    return switch (why) {
      case "Requested" -> " as asked (spec.switchover, or a rolling upgrade's last move)";
      case "ScaleDown" -> " because the scale-down removes the current primary";
      case "DataDiffers" ->
          " because the primary's data differed from it after the primary's server restarted";
      default -> "";
    };
  }

  /** What a rebuild's why adds to "rebuilding a from a copy of b", with its leading space. */
  public static String rebuild(String why) {
    return switch (why) {
      case "Requested" -> " as its rebuild annotation asks";
      case "Resumed" -> " (resuming a copy the operator did not see finish)";
      case "ErrantTransactions" -> " because it holds transactions the primary does not have";
      case "CrashRecoveryFailed" ->
          " because its server could not finish crash recovery on its old volume";
      case "DataDiffers" ->
          " because its data differed from the primary's after its server restarted";
      case "ReplicationBroken" ->
          " because its replication stopped with an error a restart cannot heal";
      default -> "";
    };
  }
}
