/** Helpers for the models operators map their generated CRD types into. */
package dev.bosun.common.model;
