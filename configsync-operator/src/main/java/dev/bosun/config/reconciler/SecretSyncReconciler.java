package dev.bosun.config.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.SyncRequest;
import dev.bosun.config.model.SyncStatus;
import dev.bosun.config.model.SyncStatusMapper;
import dev.bosun.config.sync.SecretKind;
import dev.bosun.config.v1alpha1.SecretSync;
import dev.bosun.config.v1alpha1.SecretSyncStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;
import java.util.List;
import java.util.Set;

/**
 * Copies Secrets across namespaces for {@link SecretSync} resources; their data is never logged.
 */
@ControllerConfiguration(fieldManager = ConfigSyncOperator.NAME)
public class SecretSyncReconciler extends SyncReconciler<SecretSync, SecretSyncStatus, Secret> {

  public SecretSyncReconciler(
      boolean destinationConsentRequired,
      Set<String> watchedNamespaces,
      EventRecorder events,
      Clock clock) {
    super(new SecretKind(), destinationConsentRequired, watchedNamespaces, events, clock);
  }

  @Override
  protected SyncRequest request(SecretSync sync) {
    return SyncStatusMapper.INSTANCE.request(sync.getSpec());
  }

  @Override
  protected SecretSyncStatus status(SyncStatus status) {
    return SyncStatusMapper.INSTANCE.secretStatus(status);
  }

  @Override
  protected List<Condition> conditions(SecretSync sync) {
    return sync.getStatus() == null ? null : sync.getStatus().getConditions();
  }
}
