package dev.bosun.mysql.reconciler;

import dev.bosun.common.meta.SecretValues;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.model.AccountModel;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.objects.ClusterNames;
import dev.bosun.mysql.objects.ClusterObjects;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
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
    FirstProblem problem = new FirstProblem();
    rootSecret(client, lookup, c, problem);
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
    String metricsPw = metricsPassword(client, lookup, c, problem);
    Map<String, String> accountPasswords = accountPasswords(client, lookup, c, problem);
    return new Found(
        new Credentials("bosun_operator", opPw, "bosun_repl", replPw),
        metricsPw,
        accountPasswords,
        problem.reason,
        problem.message);
  }

  /** The first problem found with a Secret the cluster runs on without the operator needing it. */
  private static final class FirstProblem {
    String reason;
    String message;

    void offer(String reason, String message) {
      if (this.message == null) {
        this.reason = reason;
        this.message = message;
      }
    }
  }

  /** The root Secret: the one spec.rootPasswordSecret names, or one the operator generates. */
  private static void rootSecret(
      KubernetesClient client, Lookup lookup, MySQLCluster c, FirstProblem problem) {
    String rootName = ClusterNames.rootSecret(c);
    String rootKey = ClusterNames.rootSecretKey(c);
    Secret root = lookup.find(rootName);
    if (root == null && c.getSpec().getRootPasswordSecret() != null) {
      problem.offer(
          "RootSecretMissing",
          "Secret " + rootName + " named by spec.rootPasswordSecret does not exist; create it");
      return;
    }
    if (root == null) {
      root = create(client, lookup, c, rootName, rootKey);
    }
    if (value(root, rootKey) == null) {
      problem.offer(
          "RootSecretInvalid",
          "Secret " + rootName + " has no non-empty key " + rootKey + "; add it");
    }
  }

  /** The metrics user's password, only while metrics are on (else no user and no Secret). */
  private static String metricsPassword(
      KubernetesClient client, Lookup lookup, MySQLCluster c, FirstProblem problem) {
    if (!ClusterModel.of(c).exporter().enabled()) {
      return null;
    }
    String metricsPw =
        value(getOrCreate(client, lookup, c, ClusterNames.metricsSecret(c)), "password");
    if (metricsPw == null) {
      problem.offer(
          "SecretInvalid",
          "Secret "
              + ClusterNames.metricsSecret(c)
              + " has no non-empty key password; delete it and the operator generates a new one");
    }
    return metricsPw;
  }

  /** The application accounts' passwords by account name; a missing one is a problem. */
  private static Map<String, String> accountPasswords(
      KubernetesClient client, Lookup lookup, MySQLCluster c, FirstProblem problem) {
    Map<String, String> accountPasswords = new TreeMap<>();
    for (AccountModel a : ClusterModel.of(c).accounts()) {
      Secret secret =
          a.secretGenerated()
              ? getOrCreate(client, lookup, c, a.secretName())
              : lookup.find(a.secretName());
      String pw = value(secret, a.secretKey());
      if (pw != null) {
        accountPasswords.put(a.name(), pw);
      } else {
        problem.offer(
            secret == null ? "UserSecretMissing" : "SecretInvalid",
            "Secret "
                + a.secretName()
                + (secret == null
                    ? " named by spec.users["
                        + a.name()
                        + "].passwordSecret does not exist; create it"
                    : " has no non-empty key " + a.secretKey() + " for the account " + a.name()));
      }
    }
    return accountPasswords;
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
