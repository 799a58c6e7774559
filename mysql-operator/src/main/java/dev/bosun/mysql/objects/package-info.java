/**
 * The desired Kubernetes objects of a MySQL cluster: names, the StatefulSet, Services and the
 * exporter sidecar.
 */
package dev.bosun.mysql.objects;
