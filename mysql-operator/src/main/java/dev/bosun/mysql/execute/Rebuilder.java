package dev.bosun.mysql.execute;

import dev.bosun.mysql.plan.Address;
import java.time.Instant;
import java.util.Map;

/**
 * Rebuilds one replica of a cluster in the background, off the reconcile threads; the replication
 * loop looks at its progress every round.
 */
public interface Rebuilder {

  /**
   * One rebuild.
   *
   * @param errantAfter the position beyond which the member's transactions are errant and are
   *     exported first; null when it has none
   * @param artifact the name its errant transactions are stored under (see {@link #location})
   */
  record Job(
      String member,
      Address target,
      Address source,
      String errantAfter,
      String artifact,
      Credentials credentials) {}

  /**
   * The rebuild of this cluster in this operator process.
   *
   * @param doing what it does now (for status), or its summary once done
   * @param failure why it failed, or null
   * @param exportRan whether this copy looked for errant transactions
   * @param exported how many errant transactions it exported
   */
  record Progress(boolean running, String doing, String failure, boolean exportRan, int exported) {}

  /** Why this cluster cannot be rebuilt at all, or null. */
  String unsupported();

  /** Whether errant transactions have a place to be exported to. */
  boolean canKeepErrant();

  /** Where an artifact named {@code artifact} is stored, for status and Events. */
  String location(String artifact);

  /** Starts a rebuild; false when it could not be queued now. */
  boolean start(Job job);

  /** This cluster's rebuild, or null when this process has none (never started, or forgotten). */
  Progress progress();

  /** Forgets a finished rebuild once its result is recorded. */
  void forget();

  /**
   * Members whose server cannot finish crash recovery, with the evidence in a sentence: what a new
   * volume cures. None unless the cluster's Pods show it.
   */
  default Map<String, String> unrecoverable() {
    return Map.of();
  }

  /**
   * Gives {@code member} a new, empty volume, keeping the old one: acts only on the claim and Pod
   * made before {@code since} (when the replacement was recorded) and on a Pod made again on the
   * old claim while it was being deleted, so it is safe to repeat. Returns what it did in a
   * sentence, or null when there was nothing left to do.
   */
  default String replaceVolume(String member, Instant since) throws InstanceException {
    throw new InstanceException("this operator cannot replace volumes");
  }

  /** A cluster that is never rebuilt (no rebuild support wired in). */
  static Rebuilder none(String why) {
    return new Rebuilder() {
      @Override
      public String unsupported() {
        return why;
      }

      @Override
      public boolean canKeepErrant() {
        return false;
      }

      @Override
      public String location(String artifact) {
        return artifact;
      }

      @Override
      public boolean start(Job job) {
        return false;
      }

      @Override
      public Progress progress() {
        return null;
      }

      @Override
      public void forget() {}
    };
  }
}
