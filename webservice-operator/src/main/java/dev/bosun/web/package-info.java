/**
 * The WebService operator: a stateless service (Deployment, Service, Ingress, autoscaler, budget)
 * with canary rollouts and a status that says why its Pods cannot start.
 */
package dev.bosun.web;
