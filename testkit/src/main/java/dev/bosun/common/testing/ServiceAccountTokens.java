package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.awaitility.Awaitility;

/**
 * ServiceAccount tokens, from the Secret Kubernetes 1.20's token controller writes or else from the
 * TokenRequest API, so tests can act as an operator's ServiceAccount and have the API server
 * enforce its RBAC.
 */
public final class ServiceAccountTokens {

  private ServiceAccountTokens() {}

  /** The account's token, or null while the token controller has not written it yet. */
  public static String tokenOrNull(KubernetesClient admin, String namespace, String account) {
    ServiceAccount sa = admin.serviceAccounts().inNamespace(namespace).withName(account).get();
    if (sa == null) {
      return null;
    }
    if (sa.getSecrets() == null || sa.getSecrets().isEmpty()) {
      // Kubernetes 1.24+ writes no token Secrets: ask the TokenRequest API (served since 1.20).
      return admin
          .serviceAccounts()
          .inNamespace(namespace)
          .withName(account)
          .tokenRequest(
              new TokenRequestBuilder()
                  .withNewSpec()
                  .withExpirationSeconds(7200L)
                  .endSpec()
                  .build())
          .getStatus()
          .getToken();
    }
    for (var ref : sa.getSecrets()) {
      Secret secret = admin.secrets().inNamespace(namespace).withName(ref.getName()).get();
      if (secret != null && secret.getData() != null && secret.getData().get("token") != null) {
        return new String(
            Base64.getDecoder().decode(secret.getData().get("token")), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  /** The account's token, waiting up to 30 s for the token controller. */
  public static String await(KubernetesClient admin, String namespace, String account) {
    return Awaitility.await("a token for " + namespace + "/" + account)
        .atMost(Duration.ofSeconds(30))
        .until(() -> tokenOrNull(admin, namespace, account), t -> t != null);
  }
}
