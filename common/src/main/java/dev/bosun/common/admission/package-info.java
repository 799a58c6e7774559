/**
 * Validating admission webhooks every operator serves: the AdmissionReview plumbing, rule lists per
 * kind, the HTTPS route and the CA bundle the chart's webhook configuration carries.
 */
package dev.bosun.common.admission;
