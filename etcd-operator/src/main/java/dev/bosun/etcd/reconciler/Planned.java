package dev.bosun.etcd.reconciler;

import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.restore.RestoreSource;
import java.util.Optional;

/**
 * The membership step a round chose, and what it was chosen on.
 *
 * @param step the one step to take
 * @param view etcd as observed (confirmed through the leader for a destructive step)
 * @param inventory the member Pods and volumes (from the API server when the step acts on them)
 * @param restore the snapshot a bootstrapping first member starts from, if any
 */
record Planned(
    Step step, EtcdView view, MemberInventory inventory, Optional<RestoreSource> restore) {

  /** The same with another step. */
  Planned withStep(Step other) {
    return new Planned(other, view, inventory, restore);
  }

  /** The same with a restore source. */
  Planned restoringFrom(RestoreSource source) {
    return new Planned(step, view, inventory, Optional.of(source));
  }
}
