package dev.bosun.mysql.reconciler;

import dev.bosun.common.meta.SecretValues;
import dev.bosun.mysql.dependent.ClusterNames;
import dev.bosun.mysql.dependent.ClusterObjects;
import dev.bosun.mysql.model.AccountModel;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.workload.Credentials;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.security.SecureRandom;
import java.util.Map;
import java.util.TreeMap;

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
  record Found(
      Credentials credentials,
      String metricsPassword,
      Map<String, String> accountPasswords,
      String problemReason,
      String problem) {
    boolean ok() {
      return problem == null;
    }
  }

  private ClusterSecrets() {}

  /** Where the Secrets are read from, and who hears of one the operator created. */
  interface Lookup {
    /** The Secret of that name in the cluster's namespace, or null. */
    Secret find(String name);

    /** Called with a Secret the operator just created. */
    default void created(Secret secret) {}
  }

  /** Reads every Secret from the server. */
  static Lookup fromServer(KubernetesClient client, MySQLCluster c) {
    return name ->
        client.secrets().inNamespace(c.getMetadata().getNamespace()).withName(name).get();
  }

  /**
   * Finds (or creates) the Secrets. The operator's and replication credentials are returned
   * whenever they are valid, even when the root Secret has a problem: the operator needs only them
   * to keep health rounds and failover going while a person fixes the root Secret.
   */
  static Found ensure(KubernetesClient client, MySQLCluster c) {
    return ensure(client, fromServer(client, c), c);
  }

  /** The same, reading through {@code lookup}. */
  static Found ensure(KubernetesClient client, Lookup lookup, MySQLCluster c) {
    String rootName = ClusterNames.rootSecret(c);
    String rootKey = ClusterNames.rootSecretKey(c);
    boolean userNamed = c.getSpec().getRootPasswordSecret() != null;
    Secret root = lookup.find(rootName);
    String rootReason = null;
    String rootProblem = null;
    if (root == null && userNamed) {
      rootReason = "RootSecretMissing";
      rootProblem =
          "Secret " + rootName + " named by spec.rootPasswordSecret does not exist; create it";
    } else {
      if (root == null) {
        root = create(client, lookup, c, rootName, rootKey);
      }
      if (value(root, rootKey) == null) {
        rootReason = "RootSecretInvalid";
        rootProblem = "Secret " + rootName + " has no non-empty key " + rootKey + "; add it";
      }
    }
    Secret repl = getOrCreate(client, lookup, c, ClusterNames.replicationSecret(c));
    Secret op = getOrCreate(client, lookup, c, ClusterNames.operatorSecret(c));
    String replPw = value(repl, "password");
    String opPw = value(op, "password");
    if (replPw == null || opPw == null) {
      String bad =
          replPw == null ? ClusterNames.replicationSecret(c) : ClusterNames.operatorSecret(c);
      return new Found(
          null,
          null,
          Map.of(),
          "SecretInvalid",
          "Secret "
              + bad
              + " has no non-empty key password; restore it (delete it only on a new cluster)");
    }
    String metricsPw = null;
    if (ClusterModel.of(c).exporter().enabled()) {
      // Only while metrics are on: a cluster without them has no metrics user and no Secret.
      metricsPw = value(getOrCreate(client, lookup, c, ClusterNames.metricsSecret(c)), "password");
      if (metricsPw == null && rootProblem == null) {
        rootReason = "SecretInvalid";
        rootProblem =
            "Secret "
                + ClusterNames.metricsSecret(c)
                + " has no non-empty key password; delete it and the operator generates a new one";
      }
    }
    Map<String, String> accountPasswords = new TreeMap<>();
    for (AccountModel a : ClusterModel.of(c).accounts()) {
      Secret secret =
          a.secretGenerated()
              ? getOrCreate(client, lookup, c, a.secretName())
              : lookup.find(a.secretName());
      String pw = value(secret, a.secretKey());
      if (pw != null) {
        accountPasswords.put(a.name(), pw);
      } else if (rootProblem == null) {
        rootReason = secret == null ? "UserSecretMissing" : "SecretInvalid";
        rootProblem =
            "Secret "
                + a.secretName()
                + (secret == null
                    ? " named by spec.users["
                        + a.name()
                        + "].passwordSecret does not exist; create it"
                    : " has no non-empty key " + a.secretKey() + " for the account " + a.name());
      }
    }
    return new Found(
        new Credentials("bosun_operator", opPw, "bosun_repl", replPw),
        metricsPw,
        accountPasswords,
        rootReason,
        rootProblem);
  }

  private static Secret getOrCreate(
      KubernetesClient client, Lookup lookup, MySQLCluster c, String name) {
    Secret s = lookup.find(name);
    return s != null ? s : create(client, lookup, c, name, "password");
  }

  private static Secret create(
      KubernetesClient client, Lookup lookup, MySQLCluster c, String name, String key) {
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
    Secret created = client.secrets().resource(s).create();
    lookup.created(created);
    return created;
  }

  /** A password, or null when missing, malformed or blank (a blank password is no password). */
  static String value(Secret s, String key) {
    return SecretValues.value(s, key).filter(v -> !v.isBlank()).orElse(null);
  }

  static String generate() {
    StringBuilder sb = new StringBuilder(24);
    for (int i = 0; i < 24; i++) {
      sb.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return sb.toString();
  }
}
