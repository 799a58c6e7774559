package dev.bosun.common.backup;

import dev.bosun.common.status.HumanMessages;
import dev.bosun.common.status.ReasonedException;
import java.time.Duration;

/**
 * Why a backup's store cannot be opened: a sentence for a condition (never a secret, never an
 * exception's text) and the condition reason that goes with it.
 */
public final class BackupStoreException extends ReasonedException {

  /** The spec must change: no retry helps. */
  public static final String INVALID_SPEC = "InvalidSpec";

  /** Something the spec points at (the credentials Secret) is missing or incomplete for now. */
  public static final String STORE_UNAVAILABLE = "StoreUnavailable";

  public BackupStoreException(String reason, String message) {
    super(reason, message);
  }

  /** True when retrying cannot help until the spec changes. */
  public boolean invalidSpec() {
    return INVALID_SPEC.equals(reason());
  }

  /** The Ready condition's message: bounded, and saying "invalid spec" for a spec mistake. */
  public String conditionMessage() {
    String message = HumanMessages.bounded(getMessage(), HumanMessages.MAX_LENGTH);
    return invalidSpec() ? "invalid spec: " + message : message;
  }

  /**
   * When to look again: null for a spec mistake (only a new spec helps, and it triggers a
   * reconcile), else 30 seconds (a Secret is not watched).
   */
  public Duration retryAfter() {
    return invalidSpec() ? null : Duration.ofSeconds(30);
  }
}
