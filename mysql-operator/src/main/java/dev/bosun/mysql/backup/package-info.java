/**
 * Logical dumps and what reads a tenant's data safely: dump text checks, the client-command scan,
 * errant transaction export and the replica copy.
 */
package dev.bosun.mysql.backup;
