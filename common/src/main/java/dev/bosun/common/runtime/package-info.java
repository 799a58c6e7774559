/**
 * What runs an operator process: settings from the environment, the health server, thread pools
 * that shut down with the operator, the image reference and DNS caching.
 */
package dev.bosun.common.runtime;
