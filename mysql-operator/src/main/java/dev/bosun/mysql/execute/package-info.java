/**
 * Executing the plan on the servers: observing members, the failover's fenced order, accounts and
 * grants, and the topology record the status keeps.
 */
package dev.bosun.mysql.execute;
