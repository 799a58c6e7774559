/**
 * Talking to etcd: clients per member, the cluster view and member status, alarms and deadlines.
 */
package dev.bosun.etcd.client;
