/**
 * The MySQLCluster spec as a model with defaults applied: accounts, exporter, failover and rebuild
 * settings.
 */
package dev.bosun.mysql.model;
