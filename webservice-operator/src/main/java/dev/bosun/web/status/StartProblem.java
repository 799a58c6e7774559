package dev.bosun.web.status;

/**
 * Why a WebService's Pods cannot start: a CamelCase Degraded reason and a sentence for a person.
 */
public record StartProblem(String reason, String message) {}
