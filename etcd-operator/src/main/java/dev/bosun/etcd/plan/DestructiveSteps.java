package dev.bosun.etcd.plan;

/**
 * Which steps destroy something a member may still need (its membership, its Pod or its volume),
 * and the rule that such steps are decided only on a linearizable member list. The observation's
 * member list comes from whichever member answered first, out of that member's own store: a member
 * that lags behind can omit a member just added (whose Pod and volume would then look like
 * leftovers) or still list one just removed. When the first plan would destroy something, the round
 * plans again on the list read through the leader and does what that plan says, destructive or not.
 */
public final class DestructiveSteps {

  private DestructiveSteps() {}

  /** Removing a member, or deleting the Pod or volume of a name that is not a member. */
  public static boolean destructive(Step step) {
    return step instanceof Step.RemoveMember || step instanceof Step.DeleteResources;
  }

  /**
   * The step to carry out: {@code planned} when it destroys nothing, else {@code confirmed}, the
   * plan on the linearizable list (the same step when the first list was right). A stale member
   * that keeps answering first then never stalls the cluster, and never decides a removal.
   */
  public static Step confirm(Step planned, Step confirmed) {
    return destructive(planned) ? confirmed : planned;
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
