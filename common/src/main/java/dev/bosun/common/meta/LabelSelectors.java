package dev.bosun.common.meta;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Evaluates a Kubernetes label selector against labels, as the API server does for lists. */
public final class LabelSelectors {

  private LabelSelectors() {}

  /**
   * True when {@code labels} satisfy every matchLabels entry and every matchExpression. A null
   * selector matches nothing; an empty one matches everything (the API's meaning).
   */
  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    Map<String, String> actual = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(actual.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if (!matches(r, actual)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * What is wrong with a selector the API would refuse in a list call (In and NotIn need values,
   * Exists and DoesNotExist take none), each problem naming {@code field}; empty when valid.
   */
  public static List<String> problems(LabelSelector selector, String field) {
    List<String> problems = new ArrayList<>();
    if (selector == null || selector.getMatchExpressions() == null) {
      return problems;
    }
    for (int i = 0; i < selector.getMatchExpressions().size(); i++) {
      LabelSelectorRequirement r = selector.getMatchExpressions().get(i);
      boolean hasValues = r.getValues() != null && !r.getValues().isEmpty();
      boolean needsValues = "In".equals(r.getOperator()) || "NotIn".equals(r.getOperator());
      if (needsValues != hasValues) {
        problems.add(
            field
                + ".matchExpressions["
                + i
                + "] ("
                + r.getKey()
                + " "
                + r.getOperator()
                + "): "
                + (needsValues
                    ? "In and NotIn need values"
                    : "Exists and DoesNotExist take no values"));
      }
    }
    return problems;
  }

  private static boolean matches(LabelSelectorRequirement r, Map<String, String> labels) {
    String value = labels.get(r.getKey());
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    return switch (r.getOperator()) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> labels.containsKey(r.getKey());
      case "DoesNotExist" -> !labels.containsKey(r.getKey());
      default -> throw new IllegalArgumentException("unknown selector operator " + r.getOperator());
    };
  }
}
