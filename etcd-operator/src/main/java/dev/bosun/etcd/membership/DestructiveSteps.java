package dev.bosun.etcd.membership;

/**
 * Which steps destroy something a member may still need (its membership, its Pod or its volume),
 * and the rule that such a step is carried out only when a plan on a linearizable member list
 * chooses it too. The observation's member list comes from whichever member answered first, out of
 * that member's own store: a member that lags behind can omit a member just added (whose Pod and
 * volume would then look like leftovers) or still list one just removed.
 */
public final class DestructiveSteps {

  private DestructiveSteps() {}

  /** Removing a member, or deleting the Pod or volume of a name that is not a member. */
  public static boolean destructive(Step step) {
    return step instanceof Step.RemoveMember || step instanceof Step.DeleteResources;
  }

  /**
   * The step to carry out: {@code planned} when it destroys nothing or when the plan on the
   * linearizable list ({@code confirmed}) is the same; otherwise a wait that says why.
   */
  public static Step confirm(Step planned, Step confirmed) {
    if (!destructive(planned) || planned.equals(confirmed)) {
      return planned;
    }
    return new Step.Wait(
        "MemberListChanged",
        "not "
            + planned.message()
            + ": the member list read through the leader disagrees with the one first read"
            + " (a member lagging behind answered first); planning again on the next look");
  }

  /** The wait when the linearizable member list could not be read. */
  public static Step unconfirmed(Step planned) {
    return new Step.Wait(
        "MemberListUnconfirmed",
        "not "
            + planned.message()
            + " yet: the member list could not be read through the leader to confirm it");
  }
}
