package dev.bosun.config.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.SyncRequest;
import dev.bosun.config.model.SyncStatus;
import dev.bosun.config.model.SyncStatusMapper;
import dev.bosun.config.sync.ConfigMapKind;
import dev.bosun.config.v1alpha1.ConfigMapSync;
import dev.bosun.config.v1alpha1.ConfigMapSyncStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;
import java.util.List;
import java.util.Set;

/** Copies ConfigMaps across namespaces for {@link ConfigMapSync} resources. */
@ControllerConfiguration(fieldManager = ConfigSyncOperator.NAME)
public class ConfigMapSyncReconciler
    extends SyncReconciler<ConfigMapSync, ConfigMapSyncStatus, ConfigMap> {

  public ConfigMapSyncReconciler(
      boolean destinationConsentRequired,
      Set<String> watchedNamespaces,
      EventRecorder events,
      Clock clock) {
    super(new ConfigMapKind(), destinationConsentRequired, watchedNamespaces, events, clock);
  }

  @Override
  protected SyncRequest request(ConfigMapSync sync) {
    return SyncStatusMapper.INSTANCE.request(sync.getSpec());
  }

  @Override
  protected ConfigMapSyncStatus status(SyncStatus status) {
    return SyncStatusMapper.INSTANCE.configMapStatus(status);
  }

  @Override
  protected List<Condition> conditions(ConfigMapSync sync) {
    return sync.getStatus() == null ? null : sync.getStatus().getConditions();
  }
}
