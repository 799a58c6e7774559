package dev.bosun.common.testing.chaos;

/**
 * What injects an operator's faults into its lab: a fault by its kind's name and target, its heal,
 * and a heal of everything still broken (after a schedule, or when it stopped early). Heals are
 * idempotent: healing what is not broken does nothing.
 */
public interface Nemesis {

  /** Injects {@code fault}; throws if it could not be injected. */
  void inject(Fault fault) throws Exception;

  /** Heals {@code fault} (never called for an instantaneous one). */
  void heal(Fault fault) throws Exception;

  /** Heals every fault still in effect. */
  void healAll() throws Exception;
}
