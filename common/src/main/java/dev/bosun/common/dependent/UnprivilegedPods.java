package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;

/**
 * The pieces of a Pod an operator runs in a tenant's namespace on the tenant's data (a restore's
 * load, a rebuild's copy): a fixed non-root user, no capability, no privilege escalation, a
 * read-only root and the runtime's default seccomp profile.
 */
public final class UnprivilegedPods {

  private UnprivilegedPods() {}

  /** The Pod's security context: every container runs as {@code user}, its volumes its group's. */
  public static PodSecurityContext podSecurity(long user) {
    return new PodSecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withRunAsUser(user)
        .withRunAsGroup(user)
        .withFsGroup(user)
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .build();
  }

  /** A container's security context: nothing beyond the Pod's user. */
  public static SecurityContext containerSecurity() {
    return new SecurityContextBuilder()
        .withAllowPrivilegeEscalation(false)
        .withPrivileged(false)
        .withReadOnlyRootFilesystem(true)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .build();
  }

  /** A mount of the volume {@code name} at {@code path}. */
  public static VolumeMount mount(String name, String path, boolean readOnly) {
    return new VolumeMountBuilder()
        .withName(name)
        .withMountPath(path)
        .withReadOnly(readOnly)
        .build();
  }

  /** A plain environment variable. */
  public static EnvVar env(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }
}
