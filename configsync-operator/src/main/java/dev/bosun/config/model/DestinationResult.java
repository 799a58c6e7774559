package dev.bosun.config.model;

/**
 * The outcome for one destination namespace.
 *
 * @param namespace the destination
 * @param state what happened there
 * @param sourceResourceVersion the source version the copy matches (Synced only)
 * @param message what a person should know or do
 */
public record DestinationResult(
    String namespace, State state, String sourceResourceVersion, String message) {

  /** Per-destination states, as the status shows them. */
  public enum State {
    SYNCED,
    CONFLICT,
    NOT_ALLOWED,
    ERROR
  }
}
