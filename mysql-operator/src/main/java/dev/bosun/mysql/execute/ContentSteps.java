package dev.bosun.mysql.execute;

import dev.bosun.mysql.plan.ContentState;
import dev.bosun.mysql.plan.Rebuilds;
import dev.bosun.mysql.plan.Step;
import dev.bosun.mysql.plan.StepText;
import java.time.Clock;
import java.util.Map;
import java.util.TreeMap;

/** Carries out the steps about the members' data: record server starts, compare, record results. */
final class ContentSteps {

  private final Clock clock;

  ContentSteps(Clock clock) {
    this.clock = clock;
  }

  /** The server starts of members first seen (or that cannot be compared), as verified. */
  Outcome recordStarts(Step.RecordServerStarts r, StepExecutor.Context ctx) {
    TopologyRecord rec = ctx.record();
    Map<String, Long> kept = new TreeMap<>(rec.content().verifiedStarts());
    // Members scaled away leave no start behind: one that comes back starts from a new look.
    kept.keySet().retainAll(ctx.addresses().keySet());
    kept.putAll(r.starts());
    ContentRecord next =
        new ContentRecord(
            kept, rec.content().differing(), rec.content().last(), rec.content().lastAt());
    return Outcome.quiet(rec.withContent(next));
  }

  /** Pins the replica against the primary now; the comparison goes on in the background. */
  Outcome check(Step.CheckContent c, StepExecutor.Context ctx) {
    if (ctx.checks() == null) {
      return Outcome.quiet(ctx.record());
    }
    ctx.checks().start(c, ctx.addresses().get(c.replica()), ctx.addresses().get(c.primary()));
    return Outcome.normal(ctx.record(), "ComparingData", StepText.sentence(c, ""));
  }

  /** Records what a comparison found; a replica that restarted and differs is kept out. */
  Outcome checked(Step.ContentChecked k, StepExecutor.Context ctx) {
    TopologyRecord rec = ctx.record();
    ContentState.Finished f = k.result();
    Step.CheckContent c = f.check();
    if (ctx.checks() != null) {
      ctx.checks().forget();
    }
    if (f.failure() != null) {
      // Tried again later (ContentChecks waits before the next try): nothing was learnt.
      return Outcome.quiet(rec);
    }
    if (f.differences() != null && c.suspect() != null && c.suspect().equals(holderOfMore(f))) {
      return disproved(f, rec);
    }
    Map<String, Long> starts = new TreeMap<>();
    starts.put(c.primary(), c.primaryStart());
    starts.put(c.replica(), c.replicaStart());
    // The suspect is kept out (the primary once it has handed over). When neither side was known
    // good, the side that lacks rows the other holds (what a lossy recovery leaves; seeds 118 and
    // 945775); when that cannot be told (each lacks rows the other holds: both recoveries lost
    // one), the replica, and the primary is not known good either. Recording both as known good
    // let the lossy replica of seed 15136 be copied by a rebuild and stay a failover candidate.
    boolean undecided =
        f.differences() != null
            && c.suspect() == null
            && !ContentState.Finished.REPLICA.equals(f.lacking())
            && !ContentState.Finished.PRIMARY.equals(f.lacking());
    String differs =
        f.differences() == null
            ? null
            : c.suspect() != null
                ? c.suspect()
                : ContentState.Finished.PRIMARY.equals(f.lacking()) ? c.primary() : c.replica();
    if (undecided) {
      starts.remove(c.primary());
    }
    String why = "(compared " + StepText.contentWhy(c) + ")";
    if (f.differences() == null) {
      String sentence =
          c.replica()
              + "'s data is the same as the primary "
              + c.primary()
              + "'s "
              + why
              + ": "
              + f.summary();
      return Outcome.normal(
          rec.withContent(rec.content().compared(starts, null, null, sentence, clock.instant())),
          "DataVerified",
          sentence);
    }
    if (differs != null) {
      starts.remove(differs);
    }
    String sentence =
        differenceSentence(c, f) + (undecided ? undecidedConsequence(c) : consequence(c, differs));
    return Outcome.warning(
        rec.withContent(
            rec.content().compared(starts, differs, f.differences(), sentence, clock.instant())),
        "DataDiffers",
        sentence);
  }

  /**
   * The suspect holds rows the side known good lacks, and none twice: a crash recovery loses rows,
   * it does not make new ones, so the known-good side is what lacks them. Before this, the suspect
   * was rebuilt from the side that had lost them: in seed 614468 the primary and a replica had both
   * lost the same acknowledged row, were compared with each other and agreed, and the third member,
   * the only one still holding the row, was then found differing and rebuilt away.
   */
  private Outcome disproved(ContentState.Finished f, TopologyRecord rec) {
    Step.CheckContent c = f.check();
    String holder = holderOfMore(f);
    boolean primaryLacks = holder.equals(c.replica());
    String lacking = primaryLacks ? c.primary() : c.replica();
    String sentence =
        differenceSentence(c, f)
            + "; "
            + holder
            + " holds rows "
            + lacking
            + " lacks and none twice; a crash recovery loses rows, it does not make them, so "
            + lacking
            + " lost them though it was taken as known good, and so may have any member found the"
            + " same as it: "
            + (primaryLacks
                ? "the primary moves to " + holder + ", then " + lacking + " is kept out"
                : lacking + " is kept out")
            + " until it is rebuilt (annotation "
            + Rebuilds.REQUEST_ANNOTATION
            + "="
            + lacking
            + ", or spec.replication.rebuild Automatic), and the other members are compared again";
    long holderStart = primaryLacks ? c.replicaStart() : c.primaryStart();
    return Outcome.warning(
        rec.withContent(
            rec.content()
                .disproved(
                    holder, holderStart, lacking, f.differences(), sentence, clock.instant())),
        "DataDiffers",
        sentence);
  }

  /** "db-1's data differs from the primary db-0's (compared because …): what differed". */
  private static String differenceSentence(Step.CheckContent c, ContentState.Finished f) {
    return c.replica()
        + "'s data differs from the primary "
        + c.primary()
        + "'s (compared "
        + StepText.contentWhy(c)
        + "): "
        + f.differences();
  }

  /** The side holding rows the other lacks (none twice), or null when that cannot be told. */
  private static String holderOfMore(ContentState.Finished f) {
    if (ContentState.Finished.PRIMARY.equals(f.lacking())) {
      return f.check().replica();
    }
    return ContentState.Finished.REPLICA.equals(f.lacking()) ? f.check().primary() : null;
  }

  /** What follows from a difference that names no side lacking rows. */
  private static String undecidedConsequence(Step.CheckContent c) {
    return "; which copy is right cannot be told, so "
        + c.replica()
        + " is kept out of the cluster until it is rebuilt and the data of the primary "
        + c.primary()
        + " is not known good either: rows only "
        + c.replica()
        + " holds may be lost by its rebuild; compare the two by hand before one is rebuilt"
        + " (annotation "
        + Rebuilds.REQUEST_ANNOTATION
        + "="
        + c.replica()
        + ")";
  }

  /** What follows from a difference, after the differences themselves. */
  private static String consequence(Step.CheckContent c, String differs) {
    if (differs.equals(c.primary())) {
      return (c.suspect() == null ? "; the primary lacks rows " + c.replica() + " holds, so" : ";")
          + " the primary moves to a replica known good, then "
          + differs
          + " is kept out until it is rebuilt";
    }
    return (c.suspect() == null ? "; " + differs + " lacks rows the primary holds, so " : "; ")
        + differs
        + " is kept out of the cluster until it is rebuilt (annotation "
        + Rebuilds.REQUEST_ANNOTATION
        + "="
        + differs
        + ", or spec.replication.rebuild Automatic)";
  }
}
