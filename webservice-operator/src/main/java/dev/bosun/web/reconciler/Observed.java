package dev.bosun.web.reconciler;

import dev.bosun.web.rollout.RolloutStall;
import dev.bosun.web.rollout.RolloutStep;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.Optional;

/**
 * What a reconcile saw before writing anything, and the gray release's step it decided on.
 *
 * @param stable the stable Deployment in the cache, before this reconcile's writes
 * @param stall whether (and until when) its rollout is stalled, which decides whether Pods are read
 * @param pods the Pods read to explain a stall or to judge a canary; none otherwise
 * @param step the step of the gray release ({@code Steady} without one)
 * @param creating whether the WebService is new: no status and no Deployment yet
 */
record Observed(
    Optional<Deployment> stable,
    RolloutStall stall,
    List<Pod> pods,
    RolloutStep step,
    boolean creating) {}
