package dev.bosun.common.dependent;

import java.util.Map;

/**
 * What a PodDisruptionBudget must say, independent of the API version the server serves: exactly
 * one of {@code minAvailable} and {@code maxUnavailable} is set.
 */
public record DisruptionBudget(
    String name,
    Map<String, String> labels,
    Map<String, String> selector,
    Integer minAvailable,
    Integer maxUnavailable) {

  public DisruptionBudget {
    if ((minAvailable == null) == (maxUnavailable == null)) {
      throw new IllegalArgumentException(
          "a disruption budget sets exactly one of minAvailable and maxUnavailable");
    }
    if (selector == null || selector.isEmpty()) {
      throw new IllegalArgumentException("a disruption budget needs a non-empty pod selector");
    }
    labels = Map.copyOf(labels == null ? Map.of() : labels);
    selector = Map.copyOf(selector);
  }
}
