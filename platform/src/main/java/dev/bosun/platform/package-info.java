/**
 * The local platform ./bosun up runs: the control plane and the real node, the umbrella chart
 * installed as a user would, and every sample brought to Ready; also what e2e's tests share with
 * it.
 */
package dev.bosun.platform;
