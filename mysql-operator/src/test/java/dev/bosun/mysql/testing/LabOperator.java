package dev.bosun.mysql.testing;

import static org.awaitility.Awaitility.await;

import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.FailoverBoundaries;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.plan.Address;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the reconciler keeps between rounds in a lab: the members' addresses (the StatefulSet), the
 * topology record (status), the errant members it knows of, the desired member count and switchover
 * request (spec); and the rounds themselves, each a tick of a {@link TopologyController} whose
 * connections leave from the operator's own client address (so a lab can cut them).
 */
public final class LabOperator {

  private static final Duration FAILOVER_AFTER = Duration.ofSeconds(2);

  private final String clientAddress;
  private final Map<String, Address> addresses = new LinkedHashMap<>();
  private final Set<String> knownErrant = new HashSet<>();
  private TopologyRecord record = TopologyRecord.empty();
  private TopologyController.Tick last;
  private int desired = 3;
  private String switchoverTarget;

  /** An operator whose connections leave from {@code clientAddress}. */
  public LabOperator(String clientAddress) {
    this.clientAddress = clientAddress;
  }

  /** A fresh controller (an operator process): its JDBC connections bound to its address. */
  public TopologyController controller(FailoverBoundaries boundaries) {
    return new TopologyController(
        new MariaDbDialect("?localSocketAddress=" + clientAddress),
        MariaDbServers.CREDENTIALS,
        Duration.ofSeconds(2),
        Clock.systemUTC(),
        10,
        boundaries);
  }

  /**
   * One round of {@code c} against the current spec and status; the record it stores (also midway,
   * through the sink) is what the next round, or a restarted operator, starts from.
   */
  public synchronized TopologyController.Tick tick(TopologyController c) {
    last =
        c.tick(
            new TopologyController.Desired(
                desired, true, FAILOVER_AFTER, switchoverTarget, 3_600_000),
            record,
            new LinkedHashMap<>(addresses),
            Set.copyOf(knownErrant),
            null,
            saved -> record = saved);
    record = last.record();
    knownErrant.addAll(last.plan().errant());
    return last;
  }

  /** Ticks {@code c} until steady, or (with a member known to be down) until the others follow. */
  public void driveUntilSteady(TopologyController c, String down) {
    await("steady" + (down == null ? "" : " without " + down))
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              TopologyController.Tick t = tick(c);
              if (down == null) {
                return t.steady();
              }
              String primaryName = record().primary();
              Address primary = address(primaryName);
              return t.error() == null
                  && t.observed().stream()
                      .anyMatch(i -> i.name().equals(primaryName) && i.writable())
                  && t.observed().stream()
                      .filter(i -> !i.name().equals(down) && !i.name().equals(primaryName))
                      .allMatch(i -> i.replicatesFrom(primary));
            });
  }

  /** A member the StatefulSet has (again). */
  public synchronized void add(String name, Address a) {
    addresses.put(name, a);
  }

  /** A member the StatefulSet no longer has. */
  public synchronized void remove(String name) {
    addresses.remove(name);
  }

  /** The members' addresses now. */
  public synchronized Map<String, Address> addresses() {
    return new LinkedHashMap<>(addresses);
  }

  /** The address of {@code name}, or null. */
  public synchronized Address address(String name) {
    return name == null ? null : addresses.get(name);
  }

  /** The recorded primary's address; throws when there is none (nothing to write to). */
  public synchronized Address primaryAddress() {
    Address a = address(record.primary());
    if (a == null) {
      throw new IllegalStateException("no primary recorded");
    }
    return a;
  }

  public synchronized TopologyRecord record() {
    return record;
  }

  /** The last round, or null before the first. */
  public synchronized TopologyController.Tick last() {
    return last;
  }

  public synchronized void desired(int instances) {
    desired = instances;
  }

  public synchronized void switchoverTarget(String target) {
    switchoverTarget = target;
  }

  /**
   * Forgets the status, as a cluster object deleted and re-created over its volumes has none: no
   * record, no errant members known.
   */
  public synchronized void forget() {
    record = TopologyRecord.empty();
    knownErrant.clear();
  }

  /** Back to a new cluster's spec and status, with no members. */
  public synchronized void reset() {
    forget();
    addresses.clear();
    last = null;
    desired = 3;
    switchoverTarget = null;
  }
}
