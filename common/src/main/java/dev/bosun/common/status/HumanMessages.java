package dev.bosun.common.status;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * Turns failures into what a condition message, an Event or a status table may carry: one human
 * sentence of bounded length naming the cause — the API server's own message for a refused request
 * — never a stack trace, a URL dump or a Java {@code toString}.
 */
public final class HumanMessages {

  /** Longest message this class returns: a status stays readable in a table and in an Event. */
  public static final int MAX_LENGTH = 512;

  private HumanMessages() {}

  /** What went wrong, for a person: the cause named, no exception dump. */
  public static String describe(Throwable failure) {
    return bounded(sentence(failure), MAX_LENGTH);
  }

  /**
   * {@code text} on one line with runs of white space collapsed, cut to at most {@code max}
   * characters (ending in "...").
   */
  public static String bounded(String text, int max) {
    if (text == null) {
      return "";
    }
    String oneLine = text.replaceAll("\\s+", " ").trim();
    if (oneLine.length() <= max) {
      return oneLine;
    }
    return oneLine.substring(0, Math.max(0, max - 3)).trim() + "...";
  }

  private static String sentence(Throwable failure) {
    if (failure == null) {
      return "an unknown error occurred";
    }
    for (Throwable t : chain(failure)) {
      if (t instanceof AggregatedOperatorException aggregated
          && !aggregated.getAggregatedExceptions().isEmpty()) {
        // A workflow failure lists one exception per dependent: the first names the cause.
        return sentence(aggregated.getAggregatedExceptions().values().iterator().next());
      }
      if (t instanceof KubernetesClientException k) {
        return apiError(k);
      }
    }
    Throwable root = chain(failure).get(chain(failure).size() - 1);
    if (root instanceof ConnectException
        || root instanceof UnknownHostException
        || root instanceof HttpConnectTimeoutException) {
      return "the API server could not be reached" + detail(root);
    }
    if (root instanceof IOException || root instanceof TimeoutException) {
      return "a request failed on the way" + detail(root);
    }
    // A bug or an unexpected state: the log has the stack. A Java class name tells a person
    // nothing they can act on, so the status only says where to look.
    return "an internal error occurred; the operator's log has the details";
  }

  private static String apiError(KubernetesClientException e) {
    var status = e.getStatus();
    String message = status == null ? null : status.getMessage();
    if (message != null && !message.isBlank()) {
      return "the API server refused the request: " + message;
    }
    if (e.getCode() > 0) {
      return "the API server answered HTTP " + e.getCode() + reasonOf(e.getCode());
    }
    Throwable cause = e.getCause();
    if (cause != null && cause != e) {
      String inner = sentence(cause);
      if (!inner.startsWith("an internal error")) {
        return inner;
      }
    }
    return "the request to the API server failed";
  }

  private static String reasonOf(int code) {
    return switch (code) {
      case 401 -> " (unauthorized: the operator's credentials were not accepted)";
      case 403 -> " (forbidden: the operator's role does not grant this)";
      case 404 -> " (not found)";
      case 409 -> " (conflict: the object changed meanwhile)";
      case 422 -> " (the object is invalid)";
      case 429 -> " (too many requests)";
      case 500, 502, 503, 504 -> " (the server is unavailable or failing)";
      default -> "";
    };
  }

  /** ": <message>" of a low-level exception when it reads as text, not as an object dump. */
  private static String detail(Throwable t) {
    String m = t.getMessage();
    if (m == null || m.isBlank() || m.contains("Exception") || m.contains("@")) {
      return "";
    }
    return ": " + m;
  }

  /**
   * {@code failure} and its causes, outermost first (at most 16, a cycle cut): where a workload's
   * own description looks for the cause it can name.
   */
  public static List<Throwable> causes(Throwable failure) {
    return chain(failure);
  }

  private static List<Throwable> chain(Throwable failure) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = failure;
        t != null && !chain.contains(t) && chain.size() < 16;
        t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }
}
