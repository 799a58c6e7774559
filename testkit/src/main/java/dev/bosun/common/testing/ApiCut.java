package dev.bosun.common.testing;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.function.Predicate;

/**
 * Cuts a client off the API server from a chosen request on, as if its process died right there:
 * that request (or the one after it) and every later one fail before they are sent. A test arms it,
 * makes the operator act, waits for the cut, stops the operator and heals the cut before starting a
 * fresh one: the state left behind is the one a real crash at that point leaves, made by the
 * operator's own code.
 */
public final class ApiCut implements Interceptor {

  private volatile Predicate<String> trigger = request -> false;
  private volatile boolean includingTrigger;
  private volatile String cutAt;

  /** Cuts at the first request ("METHOD /path") that {@code request} matches: it is not sent. */
  public void before(Predicate<String> request) {
    arm(request, true);
  }

  /** Cuts right after the first request that {@code request} matches: it is sent, no later one. */
  public void after(Predicate<String> request) {
    arm(request, false);
  }

  private synchronized void arm(Predicate<String> request, boolean including) {
    cutAt = null;
    includingTrigger = including;
    trigger = request;
  }

  /** The request the cut happened at, or null while the client still reaches the API server. */
  public String cutAt() {
    return cutAt;
  }

  /** Disarms the cut and lets every request through again. */
  public synchronized void heal() {
    trigger = request -> false;
    cutAt = null;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    String line = request.method() + " " + request.uri().getPath();
    synchronized (this) {
      if (cutAt == null) {
        if (!trigger.test(line)) {
          return;
        }
        cutAt = line;
        if (!includingTrigger) {
          return;
        }
      }
    }
    // Thrown before anything is sent: the request never reaches the API server.
    throw new KubernetesClientException("cut off the API server (at " + cutAt + "): " + line);
  }
}
