package dev.bosun.etcd.testing;

import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.tls.ServiceDnsNames;
import dev.bosun.common.transfer.RestoreEndpoint;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.Main;
import dev.bosun.etcd.plan.LoopbackAddressing;
import dev.bosun.etcd.plan.MemberAddressing;
import io.grpc.ClientInterceptor;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The etcd operator as Main runs it, with its members addressed on loopback (each cluster its own
 * 127.0.N.0/24) so that real etcd processes can play the Pods.
 */
public final class EtcdUnderTest {

  public static final String[] CRDS = {"etcdclusters.etcd.bosun.dev", "etcdbackups.etcd.bosun.dev"};

  /**
   * Shared by every operator a test JVM starts: a cluster keeps its subnet across restarts. Two
   * test runs on one machine at once must not share addresses (one run's member would answer for
   * the other's), so a second run picks other subnets with {@code -Dbosun.etcd.firstSubnet}.
   */
  public static final LoopbackAddressing ADDRESSING =
      new LoopbackAddressing(Integer.getInteger("bosun.etcd.firstSubnet", 101));

  /** The operator's backup volume. */
  public static final Path BACKUP_DIR = RunningOperator.tempDir("etcd-operator-backups");

  /** Where the operator keeps its certificate: a namespace every API server has. */
  public static final String OPERATOR_NAMESPACE = "default";

  /** The certificate Secret, as the chart names it for a release "bosun". */
  public static final String TLS_SECRET = "bosun-etcd-operator-tls";

  /** The restore Service, as the chart names it for a release "bosun". */
  public static final String RESTORE_SERVICE = "bosun-etcd-operator-restore";

  /**
   * The restore endpoint as the chart configures it, reached here as {@code localhost} (init
   * containers run on this machine): the certificate carries the Service's names and that one.
   */
  public static RestoreEndpoint restoreEndpoint(int port) {
    List<String> names = new ArrayList<>(ServiceDnsNames.of(RESTORE_SERVICE, OPERATOR_NAMESPACE));
    names.add("localhost");
    return new RestoreEndpoint(
        URI.create("https://localhost:" + port), port, OPERATOR_NAMESPACE, TLS_SECRET, names);
  }

  private EtcdUnderTest() {}

  /** Every etcd call of {@link #operator()} passes it; disarmed unless a test arms it. */
  public static final EtcdCut ETCD_CUT = new EtcdCut();

  /** The operator on {@link #ADDRESSING}, its etcd calls through {@link #ETCD_CUT}, not started. */
  public static RunningOperator operator() {
    return operator(ADDRESSING, UnaryOperator.identity(), List.of(ETCD_CUT));
  }

  /**
   * An operator with its own addressing, its etcd traffic going where {@code route} says, not yet
   * started. It serves HTTPS on a free port of this machine, the same at every start, where
   * restoring members (init containers the process kubelet runs here) fetch snapshots of the backup
   * volume.
   */
  public static RunningOperator operator(MemberAddressing addressing, UnaryOperator<URI> route) {
    return operator(addressing, route, List.of());
  }

  /** The same, every etcd call the operator makes passing {@code etcdInterceptors} too. */
  public static RunningOperator operator(
      MemberAddressing addressing,
      UnaryOperator<URI> route,
      List<ClientInterceptor> etcdInterceptors) {
    // One port for every start of this operator, as a Service keeps its address across operator
    // restarts: a restoring member's init container retries the URL its Pod was given.
    RestoreEndpoint restore = restoreEndpoint(LocalProcess.freePort("127.0.0.1"));
    return new RunningOperator(
            EtcdOperator.NAME,
            (settings, running) ->
                Main.create(
                    settings,
                    running.client,
                    addressing,
                    Optional.of(BACKUP_DIR),
                    Optional.of(restore),
                    Optional.empty(),
                    running.reconciles,
                    route,
                    etcdInterceptors),
            CRDS)
        .servingHttp();
  }
}
