/**
 * The JOSDK dependents of a WebService: Deployments (stable and canary), Service, Ingress,
 * autoscaler and disruption budget.
 */
package dev.bosun.web.dependent;
