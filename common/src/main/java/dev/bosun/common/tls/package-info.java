/**
 * Certificates the operators issue and rotate for their own endpoints: planning, issuing, storing
 * in Secrets and serving.
 */
package dev.bosun.common.tls;
