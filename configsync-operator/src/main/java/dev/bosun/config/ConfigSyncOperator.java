package dev.bosun.config;

import dev.bosun.common.meta.Labels;

/**
 * Names shared by every part of the configsync operator: its labels and annotations are its API.
 */
public final class ConfigSyncOperator {

  /** Operator name: field manager, Event source, lease name and managed-by label value. */
  public static final String NAME = "bosun-configsync-operator";

  /** Selects the copies this operator made. */
  public static final String MANAGED_SELECTOR = Labels.MANAGED_BY + "=" + NAME;

  private static final String PREFIX = "config.bosun.dev/";

  /** Label a source must carry to be synced (the operator only watches objects carrying it). */
  public static final String SOURCE_LABEL = PREFIX + "sync-source";

  /** Source annotation: comma-separated namespaces the source may be copied to, or {@code *}. */
  public static final String ALLOW_SYNC_TO = PREFIX + "allow-sync-to";

  /** Namespace annotation: comma-separated namespaces it accepts copies from, or {@code *}. */
  public static final String ACCEPT_SYNC_FROM = PREFIX + "accept-sync-from";

  /** Copy labels naming the sync that owns the copy (copies live in other namespaces). */
  public static final String SYNC_NAME_LABEL = PREFIX + "sync-name";

  public static final String SYNC_NAMESPACE_LABEL = PREFIX + "sync-namespace";

  /** Copy label: the kind of the owning sync. */
  public static final String SYNC_KIND_LABEL = PREFIX + "sync-kind";

  /** Copy annotation: {@code namespace/name} of the source. */
  public static final String SOURCE_ANNOTATION = PREFIX + "source";

  /** Copy annotation: hash of the source content the copy holds. */
  public static final String SOURCE_HASH_ANNOTATION = PREFIX + "source-hash";

  /** Label the operator puts on ConfigMaps and Secrets a ConfigMonitor watches. */
  public static final String MONITORED_LABEL = PREFIX + "monitored";

  /** Pod template annotation holding the hash of the configuration a workload runs with. */
  public static final String CONFIG_HASH_ANNOTATION = PREFIX + "config-hash";

  /** Operator setting: destinations must consent (default true). */
  public static final String REQUIRE_DESTINATION_CONSENT = "BOSUN_REQUIRE_DESTINATION_CONSENT";

  private ConfigSyncOperator() {}
}
