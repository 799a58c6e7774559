package dev.bosun.config.reconciler;

import dev.bosun.common.admission.AdmissionRules;
import dev.bosun.config.model.SyncRequest;
import dev.bosun.config.model.SyncStatusMapper;
import dev.bosun.config.v1alpha1.ConfigMapSync;
import dev.bosun.config.v1alpha1.SecretSync;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.function.Function;

/**
 * The admission webhook's rules for ConfigMapSyncs and SecretSyncs: the reconcilers' own {@link
 * ConfigSyncValidator}, so a spec is refused at apply time with the message {@code InvalidSpec}
 * would carry.
 *
 * @param <P> the sync kind
 */
public final class SyncAdmission<P extends HasMetadata> implements AdmissionRules<P> {

  /** The route the webhook configuration sends ConfigMapSync reviews to. */
  public static final String CONFIGMAPSYNCS = "/validate/configmapsyncs";

  /** The route the webhook configuration sends SecretSync reviews to. */
  public static final String SECRETSYNCS = "/validate/secretsyncs";

  private final String syncKind;
  private final Function<P, SyncRequest> request;

  private SyncAdmission(String syncKind, Function<P, SyncRequest> request) {
    this.syncKind = syncKind;
    this.request = request;
  }

  /** The rules for ConfigMapSyncs. */
  public static SyncAdmission<ConfigMapSync> configMapSyncs() {
    return new SyncAdmission<>(
        "ConfigMapSync", s -> SyncStatusMapper.INSTANCE.request(s.getSpec()));
  }

  /** The rules for SecretSyncs. */
  public static SyncAdmission<SecretSync> secretSyncs() {
    return new SyncAdmission<>("SecretSync", s -> SyncStatusMapper.INSTANCE.request(s.getSpec()));
  }

  @Override
  public List<String> problems(P object, P old) {
    return ConfigSyncValidator.syncProblems(
        syncKind, object.getMetadata().getName(), request.apply(object).selector());
  }
}
