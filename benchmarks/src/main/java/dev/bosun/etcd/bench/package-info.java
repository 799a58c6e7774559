/**
 * The etcd benchmark (./bosun bench etcd): scaling 3 -> 7 -> 3 through the operator against the
 * same membership changes made directly with jetcd.
 */
package dev.bosun.etcd.bench;
