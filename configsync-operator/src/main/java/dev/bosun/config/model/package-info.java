/**
 * The status and request types the configsync reconcilers map to and from the generated CRD
 * classes.
 */
package dev.bosun.config.model;
