package dev.bosun.common.transfer;

import dev.bosun.common.tls.ServiceDnsNames;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the operator serves what a restore loads (an etcd snapshot, a checked MySQL dump) to the
 * restoring Pods: its HTTPS URL as those Pods reach it, the port it listens on, and the Secret of
 * its own namespace that keeps the certificate for the names in that URL (the charts set it all).
 *
 * @param url the route's base URL as member Pods reach it (https)
 * @param port the port the operator listens on
 * @param namespace the operator's own namespace, where the certificate Secret is
 * @param tlsSecret the certificate Secret's name
 * @param dnsNames the names the serving certificate carries (the URL's host among them)
 */
public record RestoreEndpoint(
    URI url, int port, String namespace, String tlsSecret, List<String> dnsNames) {

  /** The route's base URL as member Pods reach it. */
  public static final String URL = "BOSUN_OPERATOR_URL";

  /** The port of the HTTPS restore route (the metrics port stays plain HTTP). */
  public static final String PORT = "BOSUN_RESTORE_PORT";

  /** The Service member Pods reach the restore port through; its DNS names go on the cert. */
  public static final String SERVICE = "BOSUN_RESTORE_SERVICE";

  /** The Secret in the operator's namespace that keeps its CA and serving certificate. */
  public static final String TLS_SECRET = "BOSUN_TLS_SECRET";

  /** The operator's own namespace. */
  public static final String NAMESPACE = "BOSUN_OPERATOR_NAMESPACE";

  /** The restore port unless the environment says otherwise. */
  public static final int DEFAULT_PORT = 8443;

  public RestoreEndpoint {
    if (!"https".equals(url.getScheme()) || url.getHost() == null) {
      throw new IllegalArgumentException(
          URL + " must be an https URL (the restore token never travels in clear): " + url);
    }
    if (url.getHost().matches("[0-9.]+|\\[.*]")) {
      throw new IllegalArgumentException(
          URL + " must name the operator by a DNS name its certificate can carry: " + url);
    }
    if (!dnsNames.contains(url.getHost())) {
      throw new IllegalArgumentException(
          "the host of " + URL + " (" + url.getHost() + ") must be one of " + dnsNames);
    }
    dnsNames = List.copyOf(dnsNames);
  }

  /**
   * The endpoint the environment describes; empty without {@value #URL}. The certificate carries
   * the Service's DNS names and the URL's host, so a custom URL by another name verifies too.
   */
  public static Optional<RestoreEndpoint> fromEnvironment(Map<String, String> env) {
    String url = env.getOrDefault(URL, "").trim();
    if (url.isEmpty()) {
      return Optional.empty();
    }
    URI uri = URI.create(url);
    String namespace = require(env, NAMESPACE);
    List<String> names = new ArrayList<>();
    String service = env.getOrDefault(SERVICE, "").trim();
    if (!service.isEmpty()) {
      names.addAll(ServiceDnsNames.of(service, namespace));
    }
    if (uri.getHost() != null && !names.contains(uri.getHost())) {
      names.add(uri.getHost());
    }
    String port = env.getOrDefault(PORT, "").trim();
    try {
      return Optional.of(
          new RestoreEndpoint(
              uri,
              port.isEmpty() ? DEFAULT_PORT : Integer.parseInt(port),
              namespace,
              require(env, TLS_SECRET),
              names));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(PORT + " must be a port number: " + port, e);
    }
  }

  private static String require(Map<String, String> env, String name) {
    String value = env.getOrDefault(name, "").trim();
    if (value.isEmpty()) {
      throw new IllegalArgumentException(URL + " is set, so " + name + " must be set too");
    }
    return value;
  }
}
