package dev.bosun.mysql.execute;

/** The operator's and the replication user's passwords; toString never shows them. */
public record Credentials(
    String operatorUser,
    String operatorPassword,
    String replicationUser,
    String replicationPassword) {

  @Override
  public String toString() {
    return "Credentials[operatorUser="
        + operatorUser
        + ", replicationUser="
        + replicationUser
        + "]";
  }
}
