package dev.bosun.mysql.topology;

/**
 * What the spec and the cluster's annotation allow for rebuilding replicas.
 *
 * @param automatic spec.replication.rebuild is Automatic
 * @param requested the member a person asked to rebuild (annotation), or null
 * @param canKeepErrant whether errant transactions have a place to be exported to
 * @param unsupported why this cluster's flavour cannot be rebuilt, or null
 * @param state where the current rebuild stands
 */
public record RebuildPolicy(
    boolean automatic,
    String requested,
    boolean canKeepErrant,
    String unsupported,
    RebuildState state) {

  /** Manual, nothing requested, nothing under way. */
  public static RebuildPolicy manual() {
    return new RebuildPolicy(false, null, true, null, RebuildState.none());
  }
}
