/**
 * The MySQL operator: MySQLCluster runs MariaDB or MySQL with semi-sync replication, fenced
 * failover and replica rebuilds; MySQLBackup takes logical dumps.
 */
package dev.bosun.mysql;
