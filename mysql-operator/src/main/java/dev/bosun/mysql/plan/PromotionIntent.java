package dev.bosun.mysql.plan;

/**
 * A promotion decided and recorded in status before it is carried out, so an operator that dies
 * half-way finds what it was doing: the candidate, the primary it replaces and the GTID position
 * the candidate held when it was chosen (the promotion point).
 */
public record PromotionIntent(String candidate, String from, String point) {}
