package dev.bosun.config.reconciler;

import dev.bosun.common.admission.AdmissionRules;
import dev.bosun.config.v1alpha1.ConfigMonitor;
import java.util.List;

/**
 * The admission webhook's rules for ConfigMonitors: the reconciler's own {@link
 * ConfigSyncValidator}, so a spec is refused at apply time with the message {@code InvalidSpec}
 * would carry.
 */
public final class MonitorAdmission implements AdmissionRules<ConfigMonitor> {

  /** The route the webhook configuration sends ConfigMonitor reviews to. */
  public static final String PATH = "/validate/configmonitors";

  @Override
  public List<String> problems(ConfigMonitor object, ConfigMonitor old) {
    return ConfigSyncValidator.monitorProblems(object.getSpec());
  }
}
