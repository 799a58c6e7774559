package dev.bosun.common.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs a command in a running container through the API server, as {@code kubectl exec} does. */
public final class PodExec {

  /** What the command printed and how it exited. */
  public record Result(int exitCode, String stdout, String stderr) {
    public boolean succeeded() {
      return exitCode == 0;
    }
  }

  private PodExec() {}

  /**
   * Runs {@code command} in the first container of {@code pod}; fails if it runs past {@code
   * timeout}.
   */
  public static Result run(
      KubernetesClient client, String namespace, String pod, Duration timeout, String... command) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (ExecWatch watch =
        client
            .pods()
            .inNamespace(namespace)
            .withName(pod)
            .writingOutput(out)
            .writingError(err)
            .exec(command)) {
      int code = watch.exitCode().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return new Result(
          code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "exec in "
              + namespace
              + "/"
              + pod
              + " ran past "
              + timeout
              + ": "
              + String.join(" ", command),
          e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("exec in " + namespace + "/" + pod + " failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Runs a shell command line ({@code sh -c}) in {@code pod}. */
  public static Result sh(
      KubernetesClient client, String namespace, String pod, Duration timeout, String commandLine) {
    return run(client, namespace, pod, timeout, "sh", "-c", commandLine);
  }
}
