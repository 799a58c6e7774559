/**
 * Bosun's test kit: a local control plane (real API server and etcd), a kubelet simulator and Job
 * runtime, the real node, charts and admission checks, and helpers that assert what operators write
 * for people.
 */
package dev.bosun.common.testing;
