package dev.bosun.common.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.bosun.common.status.HumanMessages;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP route the API server posts one kind's {@code AdmissionReview}s to; {@link
 * AdmissionReviews} decides.
 *
 * @param <T> the kind
 */
public final class ValidatingRoute<T> implements HttpHandler {

  /**
   * Largest review read: an object is at most 1.5 MiB in etcd, and an update carries two of them.
   */
  static final int MAX_BODY = 4 * 1024 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(ValidatingRoute.class);

  private final ObjectMapper json;
  private final Class<T> type;
  private final AdmissionRules<T> rules;

  /** Checks {@code type} with {@code rules}, decoding as the Kubernetes client does. */
  public ValidatingRoute(Class<T> type, AdmissionRules<T> rules) {
    this.json = Serialization.jsonMapper();
    this.type = type;
    this.rules = rules;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        reply(exchange, 405, "{\"message\":\"admission reviews are POSTed\"}");
        return;
      }
      JsonNode review;
      try (InputStream in = exchange.getRequestBody()) {
        byte[] body = in.readNBytes(MAX_BODY + 1);
        if (body.length > MAX_BODY) {
          reply(exchange, 413, "{\"message\":\"the admission review is too large\"}");
          return;
        }
        review = json.readTree(body);
      } catch (IOException e) {
        reply(exchange, 400, "{\"message\":\"the body is not an AdmissionReview\"}");
        return;
      }
      String answer;
      try {
        answer = json.writeValueAsString(AdmissionReviews.answer(json, review, type, rules));
      } catch (RuntimeException e) {
        LOG.warn("could not check a {}: {}", type.getSimpleName(), HumanMessages.describe(e));
        reply(exchange, 500, "{\"message\":\"the operator could not check the object\"}");
        return;
      }
      reply(exchange, 200, answer);
    }
  }

  private static void reply(HttpExchange exchange, int code, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
