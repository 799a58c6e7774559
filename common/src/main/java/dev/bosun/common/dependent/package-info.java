/**
 * Writing child objects: the {@code Applier} (server-side apply, write-if-changed, refusing foreign
 * objects), owner references, the child caches and informers, and Jobs an operator runs once in a
 * tenant's namespace.
 */
package dev.bosun.common.dependent;
