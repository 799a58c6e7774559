package dev.bosun.common.admission;

import dev.bosun.common.runtime.DaemonThreads;
import dev.bosun.common.status.HumanMessages;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the {@code caBundle} of every webhook in one named ValidatingWebhookConfiguration equal to
 * the CA the operator's serving certificate is signed by: set once at start, then checked every
 * {@code checkEvery}, so a CA replaced by any replica reaches the API server. Every replica does
 * this; they all write the same bundle, so the order does not matter.
 */
public final class WebhookCaBundle implements AutoCloseable {

  /**
   * How often the bundle is compared: a read of one object, so often enough that a bundle lost to a
   * forced chart upgrade (which replaces the object) or a new CA is back within a minute.
   */
  public static final Duration CHECK_EVERY = Duration.ofMinutes(1);

  private static final Logger LOG = LoggerFactory.getLogger(WebhookCaBundle.class);

  private final KubernetesClient client;
  private final String configuration;
  private final Supplier<String> caPem;
  private final ScheduledExecutorService checks;

  private WebhookCaBundle(
      KubernetesClient client, String configuration, Supplier<String> caPem, Duration every) {
    this.client = client;
    this.configuration = configuration;
    this.caPem = caPem;
    checks = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("webhook-ca-bundle"));
    long millis = every.toMillis();
    checks.scheduleWithFixedDelay(this::check, 0, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * Keeps the configuration {@code configuration} trusting {@code caPem} (PEM, read at each check)
   * from now on, checking every {@code every}.
   */
  public static WebhookCaBundle keep(
      KubernetesClient client, String configuration, Supplier<String> caPem, Duration every) {
    return new WebhookCaBundle(client, configuration, caPem, every);
  }

  /** Compares the bundle now and patches it when it differs; true when it is current. */
  public boolean check() {
    try {
      String wanted =
          Base64.getEncoder().encodeToString(caPem.get().getBytes(StandardCharsets.UTF_8));
      var resource =
          client
              .admissionRegistration()
              .v1()
              .validatingWebhookConfigurations()
              .withName(configuration);
      ValidatingWebhookConfiguration current = resource.get();
      if (current == null) {
        LOG.warn(
            "the ValidatingWebhookConfiguration {} does not exist: the API server does not send"
                + " this operator's admission reviews",
            configuration);
        return false;
      }
      if (current.getWebhooks().stream().allMatch(w -> wanted.equals(caBundle(w)))) {
        return true;
      }
      resource.edit(
          c -> {
            c.getWebhooks().forEach(w -> w.getClientConfig().setCaBundle(wanted));
            return c;
          });
      LOG.info("set the caBundle of ValidatingWebhookConfiguration {}", configuration);
      return true;
    } catch (RuntimeException e) {
      // The API server keeps the bundle it has; the next check tries again.
      LOG.warn(
          "could not check the caBundle of ValidatingWebhookConfiguration {}: {}",
          configuration,
          HumanMessages.describe(e));
      return false;
    }
  }

  private static String caBundle(ValidatingWebhook webhook) {
    return webhook.getClientConfig() == null ? null : webhook.getClientConfig().getCaBundle();
  }

  @Override
  public void close() {
    checks.shutdownNow();
  }
}
