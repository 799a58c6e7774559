/**
 * The WebService benchmarks (./bosun bench webservice, requests): reconcile time and CPU against a
 * plain client, and the API requests each change costs.
 */
package dev.bosun.web.bench;
