package dev.bosun.mysql.plan;

import java.util.Set;

/** The planner's answer: the next step, and the instances found holding errant transactions. */
public record Plan(Step step, Set<String> errant) {}
