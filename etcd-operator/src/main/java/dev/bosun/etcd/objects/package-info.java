/**
 * The desired Kubernetes objects of an etcd cluster: member Pods and volumes, Services, the
 * disruption budget and metrics.
 */
package dev.bosun.etcd.objects;
