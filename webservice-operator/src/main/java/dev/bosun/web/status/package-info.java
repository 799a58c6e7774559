/** The WebService status: aggregating rollout and Pod start problems into conditions. */
package dev.bosun.web.status;
