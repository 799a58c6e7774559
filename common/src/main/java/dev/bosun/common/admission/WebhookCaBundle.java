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
 * the CA the operator's serving certificate is signed by: checked at start, then every {@code
 * checkEvery} (sooner while it is not yet current), so a CA replaced by any replica reaches the API
 * server. Every replica does this. A replica that finds a bundle other than its own CA first reads
 * the certificate Secret again, so a replica still serving an old CA takes up the new one rather
 * than writing the old one back: they all converge on what the Secret holds.
 */
public final class WebhookCaBundle implements AutoCloseable {

  /**
   * How often a current bundle is compared: a read of one object, often enough that a replica still
   * serving a CA another replica replaced (which the API server then no longer trusts) takes up the
   * new one within seconds, and a bundle lost to a forced chart upgrade is soon back.
   */
  public static final Duration CHECK_EVERY = Duration.ofSeconds(15);

  /** The first wait after a check that could not make the bundle current; doubled after each. */
  static final Duration FIRST_RETRY = Duration.ofSeconds(1);

  private static final Logger LOG = LoggerFactory.getLogger(WebhookCaBundle.class);

  private final KubernetesClient client;
  private final String configuration;
  private final Supplier<String> caPem;
  private final Runnable reread;
  private final Duration every;
  private final ScheduledExecutorService checks;
  private volatile boolean current;
  private Duration retry = FIRST_RETRY;

  private WebhookCaBundle(
      KubernetesClient client,
      String configuration,
      Supplier<String> caPem,
      Runnable reread,
      Duration every) {
    this.client = client;
    this.configuration = configuration;
    this.caPem = caPem;
    this.reread = reread;
    this.every = every;
    checks = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("webhook-ca-bundle"));
    checks.execute(this::checkAndPlanNext);
  }

  /**
   * Keeps the configuration {@code configuration} trusting {@code caPem} (PEM, read at each check)
   * from now on, checking every {@code every}; {@code reread} reads the certificate Secret again
   * (it runs before this replica would replace a bundle it did not write).
   */
  public static WebhookCaBundle keep(
      KubernetesClient client,
      String configuration,
      Supplier<String> caPem,
      Runnable reread,
      Duration every) {
    return new WebhookCaBundle(client, configuration, caPem, reread, every);
  }

  /** The same for a CA that only this process uses (nothing to read again). */
  public static WebhookCaBundle keep(
      KubernetesClient client, String configuration, Supplier<String> caPem, Duration every) {
    return keep(client, configuration, caPem, () -> {}, every);
  }

  private void checkAndPlanNext() {
    Duration next;
    if (check()) {
      retry = FIRST_RETRY;
      next = every;
    } else {
      next = retry.compareTo(every) < 0 ? retry : every;
      retry = retry.multipliedBy(2);
    }
    if (!checks.isShutdown()) {
      checks.schedule(this::checkAndPlanNext, next.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Whether the API server trusted this replica's CA at the last check: until then, and while
   * another CA is in the bundle, the API server cannot verify this replica's certificate.
   */
  public boolean current() {
    return current;
  }

  /** Compares the bundle soon, outside the schedule (this replica's CA just changed). */
  public void checkSoon() {
    if (!checks.isShutdown()) {
      checks.execute(this::check);
    }
  }

  /** Compares the bundle now and patches it when it differs; true when it is current. */
  public boolean check() {
    try {
      var resource =
          client
              .admissionRegistration()
              .v1()
              .validatingWebhookConfigurations()
              .withName(configuration);
      ValidatingWebhookConfiguration found = resource.get();
      if (found == null) {
        LOG.warn(
            "the ValidatingWebhookConfiguration {} does not exist: the API server does not send"
                + " this operator's admission reviews, and this replica is not ready",
            configuration);
        current = false;
        return false;
      }
      if (trusts(found, wanted())) {
        current = true;
        return true;
      }
      // Another replica may have replaced the CA: serve what the Secret holds now rather than
      // write back a CA the others no longer serve.
      reread.run();
      String wanted = wanted();
      if (trusts(found, wanted)) {
        LOG.info(
            "serving the CA another replica put in ValidatingWebhookConfiguration {}",
            configuration);
        current = true;
        return true;
      }
      current = false;
      resource.edit(
          c -> {
            c.getWebhooks().forEach(w -> w.getClientConfig().setCaBundle(wanted));
            return c;
          });
      LOG.info("set the caBundle of ValidatingWebhookConfiguration {}", configuration);
      current = true;
      return true;
    } catch (RuntimeException e) {
      // Readiness stays as it was: a failed read says nothing about the bundle, and every replica
      // turning unready at once would leave the webhook with no endpoint. The next check retries.
      LOG.warn(
          "could not check the caBundle of ValidatingWebhookConfiguration {}: {}",
          configuration,
          HumanMessages.describe(e));
      return false;
    }
  }

  private String wanted() {
    return Base64.getEncoder().encodeToString(caPem.get().getBytes(StandardCharsets.UTF_8));
  }

  private static boolean trusts(ValidatingWebhookConfiguration configuration, String wanted) {
    return configuration.getWebhooks().stream().allMatch(w -> wanted.equals(caBundle(w)));
  }

  private static String caBundle(ValidatingWebhook webhook) {
    return webhook.getClientConfig() == null ? null : webhook.getClientConfig().getCaBundle();
  }

  @Override
  public void close() {
    current = false;
    checks.shutdownNow();
  }
}
