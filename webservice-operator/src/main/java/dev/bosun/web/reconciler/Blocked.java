package dev.bosun.web.reconciler;

import dev.bosun.common.admission.AdmissionReviews;
import java.util.List;

/**
 * Why a WebService's children are not written this time: its spec breaks a rule, or an object it
 * would create belongs to someone else. Nothing is applied and nothing is deleted: the last good
 * children keep running.
 */
record Blocked(String reason, String problem) {

  static final String INVALID_SPEC = "InvalidSpec";
  static final String RESOURCE_CONFLICT = "ResourceConflict";

  /** The spec's problems, in the words the admission webhook uses for them. */
  static Blocked invalidSpec(List<String> problems) {
    return new Blocked(INVALID_SPEC, AdmissionReviews.PREFIX + String.join("; ", problems));
  }

  /** A child someone else owns. */
  static Blocked conflict(String message) {
    return new Blocked(RESOURCE_CONFLICT, message);
  }
}
