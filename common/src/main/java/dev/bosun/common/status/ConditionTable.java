package dev.bosun.common.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The conditions a status carries, in a fixed order, each decided by its own rule from one set of
 * facts: a status builder declares the table once and writes one small method per condition.
 *
 * @param <F> what the builder observed and derived, everything a rule may look at
 */
public final class ConditionTable<F> {

  private record Row<F>(String type, Function<F, DesiredCondition> rule) {}

  private final List<Row<F>> rows;

  private ConditionTable(List<Row<F>> rows) {
    this.rows = List.copyOf(rows);
  }

  /** A table to fill row by row, in the order the conditions are listed in the status. */
  public static <F> Builder<F> builder() {
    return new Builder<>();
  }

  /** The condition types, in order. */
  public List<String> types() {
    return rows.stream().map(Row::type).toList();
  }

  /**
   * Every row's desired condition for {@code facts}, in order.
   *
   * @throws IllegalStateException when a rule answers for another condition type than its row (a
   *     mistake in the table, which its unit tests find)
   */
  public List<DesiredCondition> decide(F facts) {
    List<DesiredCondition> out = new ArrayList<>(rows.size());
    for (Row<F> row : rows) {
      DesiredCondition c = row.rule().apply(facts);
      if (c == null || !row.type().equals(c.type())) {
        throw new IllegalStateException(
            "the rule of condition "
                + row.type()
                + " answered "
                + (c == null ? "nothing" : c.type()));
      }
      out.add(c);
    }
    return out;
  }

  /**
   * The stored conditions for {@code facts}: {@link #decide} merged into {@code previous}, so a
   * condition whose status did not change keeps its transition time, stamped with the owner's
   * generation.
   */
  public List<Condition> conditions(
      F facts, List<Condition> previous, HasMetadata owner, Clock clock) {
    return Conditions.merge(previous, decide(facts), Conditions.generationOf(owner), clock);
  }

  /** Collects the rows of a {@link ConditionTable}. */
  public static final class Builder<F> {
    private final List<Row<F>> rows = new ArrayList<>();

    private Builder() {}

    /** The next condition: its type and the rule deciding it. */
    public Builder<F> row(String type, Function<F, DesiredCondition> rule) {
      if (rows.stream().anyMatch(r -> r.type().equals(type))) {
        throw new IllegalArgumentException("condition " + type + " is already in the table");
      }
      rows.add(new Row<>(type, rule));
      return this;
    }

    public ConditionTable<F> build() {
      return new ConditionTable<>(rows);
    }
  }
}
