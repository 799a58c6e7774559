package dev.bosun.e2e;

import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * What the API server lets one ServiceAccount do, asked as an admin: a SubjectAccessReview per
 * permission, or a client that impersonates the account (its user name and its groups), so that
 * every request is authorized by the API server as if the account made it.
 */
final class ServiceAccountAccess {

  private final KubernetesClient admin;
  private final String namespace;
  private final String name;

  /** The ServiceAccount {@code namespace}/{@code name}, asked about through {@code admin}. */
  ServiceAccountAccess(KubernetesClient admin, String namespace, String name) {
    this.admin = admin;
    this.namespace = namespace;
    this.name = name;
  }

  private String user() {
    return "system:serviceaccount:" + namespace + ":" + name;
  }

  private String[] groups() {
    return new String[] {
      "system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"
    };
  }

  /**
   * Whether the account may do {@code permission} ("apiGroup|resource[/subresource]|verb") in
   * {@code where}; an empty {@code where} asks about every namespace at once (a cluster-wide list
   * or watch), as the API server authorizes a request without a namespace.
   */
  boolean may(String permission, String where) {
    String[] parts = permission.split("\\|", -1);
    String[] resource = parts[1].split("/", 2);
    SubjectAccessReview review =
        new SubjectAccessReviewBuilder()
            .withNewSpec()
            .withUser(user())
            .withGroups(groups())
            .withNewResourceAttributes()
            .withNamespace(where)
            .withGroup(parts[0])
            .withResource(resource[0])
            .withSubresource(resource.length > 1 ? resource[1] : null)
            .withVerb(parts[2])
            .endResourceAttributes()
            .endSpec()
            .build();
    return admin.authorization().v1().subjectAccessReview().create(review).getStatus().getAllowed();
  }

  /** A client whose every request the API server authorizes as the account's; close it. */
  KubernetesClient client() {
    Config config =
        new ConfigBuilder(admin.getConfiguration())
            .withImpersonateUsername(user())
            .withImpersonateGroups(groups())
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  @Override
  public String toString() {
    return user();
  }
}
