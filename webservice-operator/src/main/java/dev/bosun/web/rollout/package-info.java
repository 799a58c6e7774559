/** Pure planning of a rollout: canary steps, judgements from metrics, revisions and stalls. */
package dev.bosun.web.rollout;
