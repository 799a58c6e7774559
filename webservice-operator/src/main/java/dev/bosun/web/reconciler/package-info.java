/**
 * The WebService reconciler: validation, the workflow of dependents, canary analysis and gates, Pod
 * events and the status written for people.
 */
package dev.bosun.web.reconciler;
