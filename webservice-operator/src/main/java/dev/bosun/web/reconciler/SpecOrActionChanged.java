package dev.bosun.web.reconciler;

import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebService;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Map;
import java.util.Objects;

/**
 * Which updates of a WebService are worth a reconcile: a new generation (a spec change), the start
 * of its deletion, or a change of the rollout-action annotation a user promotes or aborts a gray
 * release with. A status write (the operator's own) is not: it would only reconcile again to the
 * same result.
 */
public class SpecOrActionChanged implements OnUpdateFilter<WebService> {

  @Override
  public boolean accept(WebService updated, WebService old) {
    return !Objects.equals(updated.getMetadata().getGeneration(), old.getMetadata().getGeneration())
        || !Objects.equals(
            updated.getMetadata().getDeletionTimestamp(), old.getMetadata().getDeletionTimestamp())
        || !Objects.equals(action(updated), action(old));
  }

  private static String action(WebService ws) {
    Map<String, String> annotations = ws.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(WebServiceOperator.ROLLOUT_ACTION);
  }
}
