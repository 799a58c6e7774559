/** Pure planning of maintenance: defragmentation rounds and the no-space quota alarm. */
package dev.bosun.etcd.maintenance;
