package dev.bosun.mysql.reconciler;

import dev.bosun.mysql.dependent.ClusterNames;
import dev.bosun.mysql.dependent.ClusterObjects;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.workload.Credentials;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * The cluster's root, replication and operator passwords. Generated Secrets are created once and
 * never overwritten; they carry no owner reference, because the data volumes outlive the cluster
 * and a re-created cluster must find the passwords its data was initialised with.
 */
final class ClusterSecrets {

  private static final String ALPHABET =
      "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Credentials found, or a problem (reason + message, never a password). */
  record Found(Credentials credentials, String problemReason, String problem) {
    boolean ok() {
      return problem == null;
    }
  }

  private ClusterSecrets() {}

  /**
   * Finds (or creates) the Secrets. The operator's and replication credentials are returned
   * whenever they are valid, even when the root Secret has a problem: the operator needs only them
   * to keep health rounds and failover going while a person fixes the root Secret.
   */
  static Found ensure(KubernetesClient client, MySQLCluster c) {
    String ns = c.getMetadata().getNamespace();
    String rootName = ClusterNames.rootSecret(c);
    String rootKey = ClusterNames.rootSecretKey(c);
    boolean userNamed = c.getSpec().getRootPasswordSecret() != null;
    Secret root = client.secrets().inNamespace(ns).withName(rootName).get();
    String rootReason = null;
    String rootProblem = null;
    if (root == null && userNamed) {
      rootReason = "RootSecretMissing";
      rootProblem =
          "Secret " + rootName + " named by spec.rootPasswordSecret does not exist; create it";
    } else {
      if (root == null) {
        root = create(client, c, rootName, rootKey);
      }
      if (value(root, rootKey) == null) {
        rootReason = "RootSecretInvalid";
        rootProblem = "Secret " + rootName + " has no non-empty key " + rootKey + "; add it";
      }
    }
    Secret repl = getOrCreate(client, c, ClusterNames.replicationSecret(c));
    Secret op = getOrCreate(client, c, ClusterNames.operatorSecret(c));
    String replPw = value(repl, "password");
    String opPw = value(op, "password");
    if (replPw == null || opPw == null) {
      String bad =
          replPw == null ? ClusterNames.replicationSecret(c) : ClusterNames.operatorSecret(c);
      return new Found(
          null,
          "SecretInvalid",
          "Secret "
              + bad
              + " has no non-empty key password; restore it (delete it only on a new cluster)");
    }
    return new Found(
        new Credentials("bosun_operator", opPw, "bosun_repl", replPw), rootReason, rootProblem);
  }

  private static Secret getOrCreate(KubernetesClient client, MySQLCluster c, String name) {
    Secret s = client.secrets().inNamespace(c.getMetadata().getNamespace()).withName(name).get();
    return s != null ? s : create(client, c, name, "password");
  }

  private static Secret create(KubernetesClient client, MySQLCluster c, String name, String key) {
    Secret s =
        new SecretBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(c.getMetadata().getNamespace())
            .withLabels(ClusterObjects.labels(c))
            .endMetadata()
            .withType("Opaque")
            .withStringData(Map.of(key, generate()))
            .build();
    return client.secrets().resource(s).create();
  }

  static String value(Secret s, String key) {
    if (s.getData() != null && s.getData().get(key) != null) {
      try {
        String v =
            new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
        return v.isBlank() ? null : v;
      } catch (IllegalArgumentException malformed) {
        return null;
      }
    }
    if (s.getStringData() != null && s.getStringData().get(key) != null) {
      String v = s.getStringData().get(key);
      return v.isBlank() ? null : v;
    }
    return null;
  }

  static String generate() {
    StringBuilder sb = new StringBuilder(24);
    for (int i = 0; i < 24; i++) {
      sb.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return sb.toString();
  }
}
