package dev.bosun.mysql.plan;

/** Where one instance's server answers. */
public record Address(String host, int port) {

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
