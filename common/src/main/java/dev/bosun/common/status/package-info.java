/**
 * The one status path: conditions as a table of desired conditions, text that cannot render a
 * record, an enum or an exception, and status writes only when something changed.
 */
package dev.bosun.common.status;
