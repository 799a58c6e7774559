package dev.bosun.common.tls;

import dev.bosun.common.runtime.DaemonThreads;
import dev.bosun.common.status.HumanMessages;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificates an operator's HTTPS endpoints serve, checked against their Secret when started
 * and again every {@code checkEvery}: a renewed certificate (by this replica or another) is served
 * from the next handshake on, without a restart. {@link #sslContext()} is the one context every
 * endpoint of the process uses; {@link #caBundlePem()} is what clients are given to trust.
 */
public final class ServingCertificates implements AutoCloseable {

  /** How often a running operator looks at its certificates (renewal is due weeks ahead). */
  public static final Duration CHECK_EVERY = Duration.ofHours(6);

  private static final Logger LOG = LoggerFactory.getLogger(ServingCertificates.class);
  private static final String ALIAS = "serving";

  private final CertificateSecretStore store;
  private final AtomicReference<CertificateBundle> current = new AtomicReference<>();
  private final SSLContext context;
  private final ScheduledExecutorService checks;
  private final List<Runnable> caChanged = new CopyOnWriteArrayList<>();

  private ServingCertificates(CertificateSecretStore store, Duration checkEvery) {
    this.store = store;
    current.set(store.ensure());
    try {
      context = SSLContext.getInstance("TLS");
      context.init(new KeyManager[] {new CurrentKey()}, null, null);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java runtime has TLS", e);
    }
    checks =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("serving-certificates"));
    long seconds = checkEvery.toSeconds();
    checks.scheduleWithFixedDelay(this::check, seconds, seconds, TimeUnit.SECONDS);
  }

  /**
   * The certificates of {@code store}, issued and stored first when due (this reads the API server,
   * and writes it the first time), then checked every {@code checkEvery}.
   */
  public static ServingCertificates start(CertificateSecretStore store, Duration checkEvery) {
    return new ServingCertificates(store, checkEvery);
  }

  /**
   * Looks at the Secret again now (this replica may renew it); the next handshake serves what it
   * holds, and a new CA is announced to {@link #whenCaChanges} listeners.
   */
  public void check() {
    try {
      CertificateBundle before = current.getAndSet(store.ensure());
      if (!before.caBundlePem().equals(caBundlePem())) {
        LOG.info("serving a certificate signed by a new CA");
        caChanged.forEach(Runnable::run);
      }
    } catch (RuntimeException e) {
      // The certificate in use is still valid for weeks: keep it, and try at the next check.
      LOG.warn(
          "could not check the serving certificate, still serving the current one until {}: {}",
          current.get().serving().notAfter(),
          HumanMessages.describe(e));
    }
  }

  /**
   * Runs {@code listener} (on the checking thread) whenever a check finds a new CA: its clients
   * must be given it, such as a webhook configuration's {@code caBundle}.
   */
  public void whenCaChanges(Runnable listener) {
    caChanged.add(listener);
  }

  /** The context of a server presenting the current serving certificate. */
  public SSLContext sslContext() {
    return context;
  }

  /** The CA clients must trust, as PEM (a webhook's {@code caBundle}). */
  public String caBundlePem() {
    return current.get().caBundlePem();
  }

  /** The certificates served now. */
  public CertificateBundle current() {
    return current.get();
  }

  @Override
  public void close() {
    checks.shutdownNow();
  }

  /** Presents whichever serving certificate is current at each handshake. */
  private final class CurrentKey extends X509ExtendedKeyManager {

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      return matches(keyType) ? ALIAS : null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return matches(keyType) ? ALIAS : null;
    }

    private boolean matches(String keyType) {
      return keyType.equals(current.get().serving().key().getAlgorithm());
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return matches(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return ALIAS.equals(alias) ? current.get().chain() : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return ALIAS.equals(alias) ? current.get().serving().key() : null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return null;
    }
  }
}
