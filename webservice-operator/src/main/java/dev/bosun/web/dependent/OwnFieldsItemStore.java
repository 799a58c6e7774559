package dev.bosun.web.dependent;

import dev.bosun.common.dependent.TrimmedItemStore;
import dev.bosun.web.WebServiceOperator;
import io.fabric8.kubernetes.api.model.HasMetadata;

/** The dependents' informer store: only the operator's own managedFields entries are kept. */
public final class OwnFieldsItemStore<T extends HasMetadata> extends TrimmedItemStore<T> {

  public OwnFieldsItemStore() {
    super(WebServiceOperator.NAME);
  }
}
