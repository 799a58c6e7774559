/**
 * The MySQL benchmarks (./bosun bench mysql, mysql-rebuild, mysql-node): failover and rebuild
 * times, the cost of an idle cluster, and faults of the primary on the real node.
 */
package dev.bosun.mysql.bench;
