package dev.bosun.etcd.plan;

/**
 * Which cluster a member belongs to, and whether its traffic is encrypted.
 *
 * @param namespace the EtcdCluster's namespace
 * @param name the EtcdCluster's name
 * @param clientTls whether clients (and the operator) use https
 * @param peerTls whether members talk to each other over https
 */
public record ClusterRef(String namespace, String name, boolean clientTls, boolean peerTls) {

  public String clientScheme() {
    return clientTls ? "https" : "http";
  }

  public String peerScheme() {
    return peerTls ? "https" : "http";
  }
}
