package dev.bosun.common.testing;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Counts the mutating requests (POST, PUT, PATCH, DELETE) a client sends, to prove that a converged
 * operator is idle. Install it with {@code builder.addOrReplaceInterceptor("writes", counter)}.
 */
public final class WriteCounter implements Interceptor {

  private final List<String> writes = new CopyOnWriteArrayList<>();

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    String method = request.method();
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      writes.add(method + " " + request.uri().getPath());
    }
  }

  /** How many writes so far. */
  public int count() {
    return writes.size();
  }

  /** The writes since {@code from}, as "METHOD /path" lines (for a failure message). */
  public List<String> since(int from) {
    return List.copyOf(writes.subList(from, writes.size()));
  }
}
