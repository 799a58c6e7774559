package dev.bosun.common.runtime;

import java.security.Security;

/**
 * Keeps the JVM's name lookups about as fresh as the cluster's DNS: a Pod made again under its old
 * name (a StatefulSet member force-deleted or rescheduled) comes back with a new address.
 */
// The JVM caches a resolved name for 30 s and a failed lookup for 10 s (java.security), on top
// of the cluster DNS's own few seconds: a StatefulSet member made again on another address would
// be looked for at its old one for up to half a minute: a force-deleted MySQL primary's server
// answered its replicas again within 6-9 s while the operator reached it only after 19-27 s.
public final class DnsCache {

  /** Seconds a resolved name is kept. */
  static final String TTL_SECONDS = "1";

  /** Seconds a failed lookup is remembered: not at all, a Pod being made again is soon there. */
  static final String NEGATIVE_TTL_SECONDS = "0";

  private DnsCache() {}

  /**
   * Sets the JVM's address cache to {@link #TTL_SECONDS} and {@link #NEGATIVE_TTL_SECONDS}. The JVM
   * reads these once, at its first lookup, and starting the logging system makes one: call it in a
   * static initializer of the main class, ahead of any logger.
   */
  public static void followPodChanges() {
    Security.setProperty("networkaddress.cache.ttl", TTL_SECONDS);
    Security.setProperty("networkaddress.cache.negative.ttl", NEGATIVE_TTL_SECONDS);
  }
}
