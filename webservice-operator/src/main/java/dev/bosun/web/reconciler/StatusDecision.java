package dev.bosun.web.reconciler;

import dev.bosun.web.v1alpha1.WebServiceStatus;
import java.time.Duration;
import java.util.Optional;

/**
 * The status a reconcile arrived at, and whether to hold it back.
 *
 * @param status the status the children's state says
 * @param holdFor how long a new WebService's first status waits for news ({@link FirstStatus});
 *     empty to write it now
 */
record StatusDecision(WebServiceStatus status, Optional<Duration> holdFor) {}
