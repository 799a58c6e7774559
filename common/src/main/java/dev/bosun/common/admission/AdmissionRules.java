package dev.bosun.common.admission;

import java.util.List;

/**
 * What is wrong with an object of one kind that someone creates or changes: the same checks the
 * operator reports as {@code InvalidSpec}, each problem a sentence for people naming its field.
 *
 * @param <T> the kind
 */
@FunctionalInterface
public interface AdmissionRules<T> {

  /**
   * The problems of {@code object}, empty when it may be stored.
   *
   * @param object the object as it would be stored
   * @param old the stored object it replaces (its status is what the cluster runs), or null when it
   *     is being created
   */
  List<String> problems(T object, T old);
}
