package dev.bosun.mysql.execute;

/**
 * What executing one step did: the new topology record and, when people should hear of it, an Event
 * (Normal or Warning, a CamelCase reason, a message without secrets).
 */
public record Outcome(TopologyRecord record, String eventType, String reason, String message) {

  static Outcome quiet(TopologyRecord record) {
    return new Outcome(record, null, null, null);
  }

  static Outcome normal(TopologyRecord record, String reason, String message) {
    return new Outcome(record, "Normal", reason, message);
  }

  static Outcome warning(TopologyRecord record, String reason, String message) {
    return new Outcome(record, "Warning", reason, message);
  }

  /** Whether an Event should be emitted. */
  public boolean hasEvent() {
    return reason != null;
  }
}
