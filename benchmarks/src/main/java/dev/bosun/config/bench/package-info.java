/**
 * The configsync benchmark (./bosun bench configsync): one source synced to many namespaces through
 * the operator against a plain client, then the operator's writes while idle.
 */
package dev.bosun.config.bench;
