package dev.bosun.mysql.testing;

import static org.awaitility.Awaitility.await;

import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.FailoverBoundaries;
import dev.bosun.mysql.execute.Rebuilder;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.plan.Address;
import java.nio.file.Path;
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
  private String rebuildRequested;
  private Path errantDir;
  private final LabRebuilder.CopyJob copyJob = new LabRebuilder.CopyJob();
  private LabRebuilder rebuilder;

  /** An operator whose connections leave from {@code clientAddress}. */
  public LabOperator(String clientAddress) {
    this.clientAddress = clientAddress;
  }

  /**
   * Rebuilds replicas from now on, as requested ({@link #requestRebuild}), keeping errant
   * transactions below {@code errantDir}; without this call the operator has no rebuild support.
   */
  public synchronized LabOperator withRebuilds(Path errantDir) {
    this.errantDir = errantDir;
    return this;
  }

  /**
   * A fresh controller (an operator process): its JDBC connections bound to its address. With
   * rebuilds, the process before it ends here: its rebuild worker stops, a copy it started runs on.
   */
  public TopologyController controller(FailoverBoundaries boundaries) {
    synchronized (this) {
      if (errantDir != null) {
        if (rebuilder != null) {
          rebuilder.close();
        }
        rebuilder = new LabRebuilder(clientAddress, errantDir, copyJob);
      }
    }
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
                desired,
                true,
                FAILOVER_AFTER,
                switchoverTarget,
                3_600_000,
                false,
                rebuildRequested),
            record,
            new LinkedHashMap<>(addresses),
            Set.copyOf(knownErrant),
            null,
            rebuilder == null ? Rebuilder.none("the lab runs no rebuilds") : rebuilder,
            saved -> record = saved);
    record = last.record();
    knownErrant.addAll(last.plan().errant());
    // As the reconciler takes the annotation off once the rebuild it asks for started.
    if (rebuildRequested != null
        && record.rebuild() != null
        && rebuildRequested.equals(record.rebuild().member())
        && "Rebuilding".equals(last.outcome().reason())) {
      rebuildRequested = null;
    }
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

  /** The spec's instance count now. */
  public synchronized int desired() {
    return desired;
  }

  public synchronized void desired(int instances) {
    desired = instances;
  }

  public synchronized void switchoverTarget(String target) {
    switchoverTarget = target;
  }

  /** Asks for {@code member}'s rebuild, as the annotation does (null: withdraws the request). */
  public synchronized void requestRebuild(String member) {
    rebuildRequested = member;
  }

  /** The member whose rebuild is asked for and not yet started, or null. */
  public synchronized String rebuildRequested() {
    return rebuildRequested;
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
    rebuildRequested = null;
  }

  /** Ends the last operator process's rebuild worker (a copy it started still ends on its own). */
  public synchronized void close() {
    if (rebuilder != null) {
      rebuilder.close();
      rebuilder = null;
    }
  }
}
