package dev.bosun.etcd.client;

/** An etcd call failed or did not answer in time. */
public class EtcdException extends RuntimeException {

  public EtcdException(String message, Throwable cause) {
    super(message, cause);
  }
}
