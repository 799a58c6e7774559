/**
 * Restoring a cluster from a MySQLBackup: the checked dump, its route, and the load Job with its
 * Secret in the cluster's namespace.
 */
package dev.bosun.mysql.restore;
