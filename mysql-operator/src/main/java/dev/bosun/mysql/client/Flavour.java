package dev.bosun.mysql.client;

/** The server a cluster runs. */
public enum Flavour {
  MYSQL,
  MARIADB;

  /** Maps the spec's enum value (MySQL, MariaDB). */
  public static Flavour fromSpec(String value) {
    return "MariaDB".equalsIgnoreCase(value) ? MARIADB : MYSQL;
  }
}
