package dev.bosun.mysql.model;

import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import java.util.List;

/**
 * An application account of {@code spec.users}: its name, databases, database-level privileges, and
 * the Secret and key its password is read from ({@code secretGenerated}: the operator's own).
 */
public record AccountModel(
    String name,
    List<String> databases,
    List<String> privileges,
    String secretName,
    String secretKey,
    boolean secretGenerated) {

  /** The accounts of a cluster named {@code cluster}, defaults applied. */
  public static List<AccountModel> of(String cluster, MySQLClusterSpec s) {
    if (s.getUsers() == null) {
      return List.of();
    }
    return s.getUsers().stream()
        .map(
            u -> {
              var secret = u.getPasswordSecret();
              return new AccountModel(
                  u.getName(),
                  u.getDatabases() == null ? List.of() : List.copyOf(u.getDatabases()),
                  u.getPrivileges() == null || u.getPrivileges().isEmpty()
                      ? List.of("ALL")
                      : u.getPrivileges().stream().map(p -> p.getValue()).toList(),
                  secret == null ? generatedSecret(cluster, u.getName()) : secret.getName(),
                  secret == null || secret.getKey() == null ? "password" : secret.getKey(),
                  secret == null);
            })
        .toList();
  }

  /** The Secret the operator generates for an account without passwordSecret. */
  public static String generatedSecret(String cluster, String account) {
    return cluster + "-user-" + account.replace('_', '-');
  }
}
