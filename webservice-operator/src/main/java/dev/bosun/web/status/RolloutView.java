package dev.bosun.web.status;

import dev.bosun.common.status.DesiredCondition;
import dev.bosun.web.v1alpha1.webservicestatus.Rollout;

/**
 * What a gray release adds to the status: the {@code rollout} record, and the conditions it decides
 * while it runs ({@code ready} null when the Deployment's own conditions stand).
 */
public record RolloutView(
    Rollout status,
    DesiredCondition ready,
    DesiredCondition progressing,
    DesiredCondition degraded) {}
