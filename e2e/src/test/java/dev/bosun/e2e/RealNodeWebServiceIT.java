package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.PodExec;
import dev.bosun.common.testing.RealNodeExtension;
import dev.bosun.platform.RealNodePlatform;
import dev.bosun.platform.RealNodePods;
import dev.bosun.platform.Resources;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * WebServices on the real node (kubelet, containerd, the operator as its chart's Pods): Pods that
 * cannot start because a ConfigMap volume or an envFrom Secret is missing are reported, naming the
 * object, within 10 s of the Pod's first Event, and become Ready once the object exists; so are a
 * missing ServiceAccount (from the ReplicaSet's first FailedCreate Event), a Pod asking for more
 * CPU than the node has and a missing claim, as the real scheduler reports them; canaries that
 * answer 500 on every second request or answer in 2 s are aborted by the canary judge while
 * requests through the Service keep being answered by the stable revision, and a good canary is
 * promoted.
 */
@ExtendWith(RealNodeExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeWebServiceIT {

  private static final String API = "web.bosun.dev/v1alpha1";
  private static final String START_NS = "web-start";
  private static final String GRAY_NS = "web-gray";
  private static final String TROUBLE_NS = "web-trouble";
  private static final String GRAY = "gray";
  private static final String INSTANCE = "app.kubernetes.io/instance";

  /** The bound: from a case's first Event to the reason in the WebService's status. */
  private static final Duration REPORT_BOUND = Duration.ofSeconds(10);

  /**
   * The answers a WebService's CGI path gives, one script each; the last line of every body is the
   * answering Pod's name, so a client can tell canary from stable. busybox httpd sends a script's
   * output as is when it begins with a status line, and prefixes "200 OK" otherwise.
   */
  private static final Map<String, String> ANSWERS =
      Map.of(
          "fast",
          """
          #!/bin/sh
          printf 'Content-Type: text/plain\\r\\n\\r\\n%s\\n' "$(hostname)"
          """,
          // Every second request from the same address fails: the operator's checks come from
          // its Pod's address, so they see 500 on exactly half of them, whatever the clients do.
          "half",
          """
          #!/bin/sh
          f="/tmp/answered-$REMOTE_ADDR"
          n=$(cat "$f" 2>/dev/null || echo 0)
          echo $((n + 1)) > "$f"
          if [ $((n % 2)) -eq 1 ]; then
            printf 'HTTP/1.1 500 Internal Server Error\\r\\nContent-Type: text/plain\\r\\n\\r\\n%s\\n' "$(hostname)"
          else
            printf 'Content-Type: text/plain\\r\\n\\r\\n%s\\n' "$(hostname)"
          fi
          """,
          "slow",
          """
          #!/bin/sh
          sleep 2
          printf 'Content-Type: text/plain\\r\\n\\r\\n%s\\n' "$(hostname)"
          """);

  private static RealNodePlatform platform;
  private static KubernetesClient admin;
  private static String image;

  @BeforeAll
  static void install() {
    platform = RealNodePlatform.shared();
    admin = platform.admin();
    image = platform.cluster().node().workloadsImage();
  }

  /** The namespaces go, so the Pods of this class do not share the node with later classes. */
  @AfterAll
  static void removeNamespaces() {
    for (String ns : List.of(START_NS, TROUBLE_NS, GRAY_NS)) {
      admin.namespaces().withName(ns).delete();
    }
  }

  /** What starts the clock of a case: the first Event about its Pods, or the first refusal. */
  private enum FirstSign {
    POD_EVENT,
    FAILED_CREATE
  }

  /**
   * A WebService that cannot start until {@code fix} runs: its Degraded reason, a text its message
   * must hold (the object or the cause named), what starts the clock and what the fix does.
   */
  private record StartCase(
      String name,
      String reason,
      String named,
      String specLines,
      FirstSign first,
      String fixed,
      Runnable fix) {}

  @Test
  @Order(1)
  void missingConfigMapVolumeAndEnvFromSecretAreNamedWithinTenSecondsThenReady() {
    RealNodePods.namespace(admin, START_NS, Map.of());
    reportedThenReady(
        START_NS,
        List.of(
            new StartCase(
                "site-files",
                "MissingConfigMap",
                "ConfigMap site-files",
                """
                  replicas: 1
                  command: [httpd, -f, -p, '8080', -h, /srv/www]
                  volumes: [{name: www, configMap: {name: site-files}}]
                  volumeMounts: [{name: www, mountPath: /srv/www, readOnly: true}]
                """,
                FirstSign.POD_EVENT,
                "the ConfigMap was created",
                () ->
                    admin
                        .configMaps()
                        .inNamespace(START_NS)
                        .resource(
                            new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("site-files")
                                .endMetadata()
                                .withData(Map.of("index.html", "hello from a ConfigMap\n"))
                                .build())
                        .create()),
            new StartCase(
                "site-env",
                "MissingSecret",
                "Secret site-env",
                """
                  replicas: 1
                  command: [sh, -c, 'mkdir -p /tmp/www && echo "$GREETING" > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www']
                  envFrom: [{secretRef: {name: site-env}}]
                """,
                FirstSign.POD_EVENT,
                "the Secret was created",
                () ->
                    admin
                        .secrets()
                        .inNamespace(START_NS)
                        .resource(
                            new SecretBuilder()
                                .withNewMetadata()
                                .withName("site-env")
                                .endMetadata()
                                .withStringData(Map.of("GREETING", "hello from a Secret"))
                                .build())
                        .create())));
  }

  /**
   * The real node's API server runs the ServiceAccount admission plugin, so a Pod naming a missing
   * ServiceAccount is refused and the ReplicaSet controller reports FailedCreate; the real
   * scheduler reports a Pod that asks for more CPU than the node has, and one whose claim does not
   * exist, as PodScheduled=False/Unschedulable.
   */
  @Test
  @Order(2)
  void missingServiceAccountUnschedulablePodAndMissingClaimAreNamedThenReady() {
    RealNodePods.namespace(admin, TROUBLE_NS, Map.of());
    String serve =
        """
          replicas: 1
          command: [sh, -c, 'mkdir -p /tmp/www && echo ok > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www']
        """;
    reportedThenReady(
        TROUBLE_NS,
        List.of(
            new StartCase(
                "site-account",
                "MissingServiceAccount",
                "ServiceAccount site-reader",
                serve + "  serviceAccountName: site-reader\n",
                FirstSign.FAILED_CREATE,
                "the ServiceAccount was created",
                () ->
                    admin
                        .serviceAccounts()
                        .inNamespace(TROUBLE_NS)
                        .resource(
                            new ServiceAccountBuilder()
                                .withNewMetadata()
                                .withName("site-reader")
                                .endMetadata()
                                .build())
                        .create()),
            new StartCase(
                "site-cpu",
                "Unschedulable",
                "Insufficient cpu",
                serve + cpuRequest("64"),
                FirstSign.POD_EVENT,
                "the CPU request was lowered to 10m",
                () ->
                    Resources.apply(
                        admin, TROUBLE_NS, webService("site-cpu", serve + cpuRequest("10m")))),
            new StartCase(
                "site-claim",
                "MissingClaim",
                "PersistentVolumeClaim site-data",
                serve
                    + """
                      volumes: [{name: data, persistentVolumeClaim: {claimName: site-data}}]
                      volumeMounts: [{name: data, mountPath: /data}]
                    """,
                FirstSign.POD_EVENT,
                "the claim was created",
                () ->
                    admin
                        .persistentVolumeClaims()
                        .inNamespace(TROUBLE_NS)
                        .resource(
                            new PersistentVolumeClaimBuilder()
                                .withNewMetadata()
                                .withName("site-data")
                                .endMetadata()
                                .withNewSpec()
                                .withAccessModes("ReadWriteOnce")
                                .withNewResources()
                                .addToRequests("storage", new Quantity("16Mi"))
                                .endResources()
                                .endSpec()
                                .build())
                        .create())));
  }

  /** What a poll saw of a case's WebService, and when. */
  private record Seen<T>(Instant at, T what) {}

  /**
   * Polls every case's WebService until {@code seen} finds something in each, and says when it
   * first did; one loop for all, so none waits for another.
   */
  private static <T> Map<String, Seen<T>> awaitEach(
      String ns,
      List<StartCase> cases,
      String what,
      Duration atMost,
      BiFunction<StartCase, GenericKubernetesResource, Optional<T>> seen) {
    Map<String, Seen<T>> found = new LinkedHashMap<>();
    try {
      await(what)
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                for (StartCase c : cases) {
                  if (!found.containsKey(c.name())) {
                    GenericKubernetesResource ws =
                        Resources.get(admin, API, "WebService", ns, c.name());
                    seen.apply(c, ws)
                        .ifPresent(t -> found.put(c.name(), new Seen<>(Instant.now(), t)));
                  }
                }
                return found.size() == cases.size();
              });
    } catch (ConditionTimeoutException e) {
      cases.stream().filter(c -> !found.containsKey(c.name())).forEach(c -> explain(ns, c.name()));
      throw e;
    }
    return found;
  }

  private static String cpuRequest(String cpu) {
    return "  resources: {requests: {cpu: '%s'}}\n".formatted(cpu);
  }

  /**
   * Applies the cases' WebServices and proves each is Degraded with its reason and the cause named
   * within {@link #REPORT_BOUND} of its first sign, then runs every fix and proves each Ready.
   */
  private static void reportedThenReady(String ns, List<StartCase> cases) {
    for (StartCase c : cases) {
      Resources.apply(admin, ns, webService(c.name(), c.specLines()));
    }

    Map<String, Seen<Resources.Condition>> reported =
        awaitEach(
            ns,
            cases,
            "every WebService Degraded with the reason naming the cause",
            Duration.ofSeconds(60),
            (c, ws) ->
                Resources.conditionOf(ws, "Degraded")
                    .filter(d -> d.status().equals("True") && d.reason().equals(c.reason())));
    for (StartCase c : cases) {
      Resources.Condition degraded = reported.get(c.name()).what();
      List<SeenEvent> events = firstSigns(ns, c);
      assertThat(events).as(c.first() + " Events of " + c.name()).isNotEmpty();
      Duration after = Duration.between(events.get(0).at(), reported.get(c.name()).at());
      System.err.printf(
          Locale.ROOT,
          "[e2e] %s: %s reported %.1f s after the first %s Event (%s): %s%n",
          c.name(),
          c.reason(),
          after.toMillis() / 1000.0,
          c.first() == FirstSign.POD_EVENT ? "Pod" : "FailedCreate",
          events,
          degraded.message());
      assertThat(degraded.message()).as(c.name() + "'s Degraded message").contains(c.named());
      assertThat(after)
          .as(c.name() + ": first " + c.first() + " Event to reason in status")
          .isLessThanOrEqualTo(REPORT_BOUND);
    }

    Map<String, Instant> fixedAt = new LinkedHashMap<>();
    for (StartCase c : cases) {
      c.fix().run();
      fixedAt.put(c.name(), Instant.now());
    }
    Map<String, Seen<Boolean>> ready =
        awaitEach(
            ns,
            cases,
            "every WebService Ready once fixed",
            Duration.ofSeconds(90),
            (c, ws) -> Optional.of(true).filter(t -> Resources.ready(ws)));
    for (StartCase c : cases) {
      System.err.printf(
          Locale.ROOT,
          "[e2e] %s: Ready %.1f s after %s%n",
          c.name(),
          Duration.between(fixedAt.get(c.name()), ready.get(c.name()).at()).toMillis() / 1000.0,
          c.fixed());
    }
  }

  /** One gray release: the answers the canary gives and how it should end. */
  private record CanaryCase(
      String title, String answer, String release, String phase, String judged) {}

  /** What one case measured. */
  private record CanaryRow(
      CanaryCase c, CountedRequests.Counts counts, Duration took, Duration stableOnly) {}

  @Test
  @Order(3)
  void canariesAnsweringErrorsOrSlowlyAreAbortedWhileStableServesAndAGoodOneIsPromoted() {
    RealNodePods.namespace(admin, GRAY_NS, Map.of());
    admin
        .configMaps()
        .inNamespace(GRAY_NS)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("answers")
                .endMetadata()
                .withData(ANSWERS)
                .build())
        .create();
    Resources.apply(admin, GRAY_NS, grayRelease("fast", "1"));
    RealNodePods.run(admin, GRAY_NS, RealNodePods.shell("client", image, Map.of()));
    Resources.awaitReady(admin, API, "WebService", GRAY_NS, GRAY, Duration.ofMinutes(2));
    awaitStableOnly();
    String first =
        PodExec.sh(
                admin,
                GRAY_NS,
                "client",
                Duration.ofSeconds(20),
                "printf 'GET /cgi-bin/app HTTP/1.0\\r\\n\\r\\n' | timeout 5 nc " + GRAY + " 80")
            .stdout();
    assertThat(first).as("a CGI answer through the Service").startsWith("HTTP/1.1 200 OK");

    List<CanaryCase> cases =
        List.of(
            new CanaryCase(
                "500 on every second request",
                "half",
                "1",
                "Aborted",
                "the canary answers worse than the stable revision"),
            new CanaryCase(
                "answers in 2 s",
                "slow",
                "1",
                "Aborted",
                "the canary answers slower than the stable revision"),
            new CanaryCase(
                "answers as the stable one does", "fast", "2", "Promoted", "was promoted"));
    CountedRequests requests = new CountedRequests(admin, GRAY_NS, "client");
    List<CanaryRow> rows = new ArrayList<>();
    for (CanaryCase c : cases) {
      String before = rollout().canaryRevision();
      CompletableFuture<PodExec.Result> loop =
          requests.start(GRAY, "/cgi-bin/app", 600, Duration.ofSeconds(120));
      Instant changed = Instant.now();
      Resources.apply(admin, GRAY_NS, grayRelease(c.answer(), c.release()));
      Rollout ended;
      try {
        // One read per poll: phase and revision from two reads could mix the last case's end
        // with this one's start.
        ended =
            await("the canary that " + c.title() + " " + c.phase())
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250))
                .until(
                    RealNodeWebServiceIT::rollout,
                    r ->
                        c.phase().equals(r.phase())
                            && r.canaryRevision() != null
                            && !r.canaryRevision().equals(before));
      } catch (ConditionTimeoutException e) {
        requests.stop();
        explain(GRAY_NS, GRAY);
        throw e;
      }
      Duration took = Duration.between(changed, Instant.now());
      String message = ended.message();
      System.err.println("[e2e] canary that " + c.title() + ": " + c.phase() + ": " + message);
      // The requests are counted until the Service routes to the two stable Pods alone again:
      // the whole time it routed to canary Pods too.
      awaitStableOnly();
      Duration stableOnly = Duration.between(changed, Instant.now());
      requests.stop();
      PodExec.Result out = loop.join();
      CountedRequests.Counts counts = CountedRequests.counts(out.stdout());
      System.err.printf(
          Locale.ROOT,
          "[e2e]   %s after %.1f s, the Service routes to the stable Pods alone after %.1f s,"
              + " the request loop stopped after %.1f s: %s%n%s%n",
          c.phase(),
          took.toMillis() / 1000.0,
          stableOnly.toMillis() / 1000.0,
          Duration.between(changed, Instant.now()).toMillis() / 1000.0,
          counts,
          out.stdout().trim());
      rows.add(new CanaryRow(c, counts, took, stableOnly));
      assertThat(message).as("the rollout's message").contains(c.judged());
      assertThat(counts.ok()).as("requests answered 200 while the canary ran").isPositive();
      // The rule: every failed request was answered by a canary Pod (named in the body), so no
      // request went unanswered and the stable revision answered every one of its requests with
      // 200; hence failed <= requests routed to canary Pods.
      assertThat(counts.failedElsewhere())
          .as("requests failed other than at a canary Pod (" + c.title() + ")")
          .isZero();
      if (c.phase().equals("Promoted")) {
        assertThat(counts.failed()).as("failed requests around a good canary").isZero();
      }
    }
    Resources.awaitReady(admin, API, "WebService", GRAY_NS, GRAY, Duration.ofMinutes(1));
    System.err.println(table(rows));
  }

  private static String table(List<CanaryRow> rows) {
    StringBuilder t =
        new StringBuilder(
            "[e2e] canaries judged by their answers (2 replicas, one step of 50%; a request every"
                + " 0.2 s from a client Pod through the Service):\n"
                + "| canary | requests | to canary | failed | failed elsewhere | outcome |"
                + " stable Pods alone after |\n"
                + "|---|---|---|---|---|---|---|\n");
    for (CanaryRow r : rows) {
      t.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %d | %d | %s after %.1f s | %.1f s |%n",
              r.c().title(),
              r.counts().requests(),
              r.counts().toCanary(),
              r.counts().failed(),
              r.counts().failedElsewhere(),
              r.c().phase().toLowerCase(Locale.ROOT),
              r.took().toMillis() / 1000.0,
              r.stableOnly().toMillis() / 1000.0));
    }
    return t.toString();
  }

  /**
   * The WebService of the canary cases: two replicas behind a Service, one canary step of 50%
   * judged by 10 checks of /cgi-bin/app per revision; {@code answer} picks the CGI script, {@code
   * release} changes the template without changing the answers. A preStop pause lets the Service
   * stop routing to a Pod before it stops answering, as production WebServices do.
   */
  private static String grayRelease(String answer, String release) {
    return webService(
        GRAY,
        """
          replicas: 2
          command: [sh, -c, 'mkdir -p /tmp/www/cgi-bin && echo ready > /tmp/www/index.html && cp "/answers/$ANSWER" /tmp/www/cgi-bin/app && chmod 755 /tmp/www/cgi-bin/app && exec httpd -f -p 8080 -h /tmp/www']
          env: [{name: ANSWER, value: %s}, {name: RELEASE, value: "%s"}]
          volumes: [{name: answers, configMap: {name: answers}}]
          volumeMounts: [{name: answers, mountPath: /answers, readOnly: true}]
          lifecycle: {preStop: {exec: {command: [sleep, '3']}}}
          terminationGracePeriodSeconds: 5
          rollout:
            canary:
              readyDeadlineSeconds: 60
              steps: [{weight: 50, pauseSeconds: 5}]
              analysis:
                http: {path: /cgi-bin/app, samplesPerStep: 10, requestsPerSecond: 5, latencyBoundMillis: 3000}
        """
            .formatted(answer, release));
  }

  /**
   * A WebService of busybox httpd from the node's workloads image, answering on port 8080 behind
   * port 80, ready once / answers, as a non-root user; {@code specLines} add the rest of its spec.
   */
  private static String webService(String name, String specLines) {
    return """
        apiVersion: web.bosun.dev/v1alpha1
        kind: WebService
        metadata: {name: %s}
        spec:
          image: %s
          imagePullPolicy: Never
          ports: [{port: 80, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /}, periodSeconds: 1}
          securityContext: {runAsUser: 65532}
        %s"""
        .formatted(name, image, specLines);
  }

  /**
   * Waits until the gray Service routes to two ready stable Pods and nothing else (a Pod being
   * deleted leaves the Endpoints at once, though it lives on for its grace period).
   */
  private static void awaitStableOnly() {
    await("the " + GRAY + " Service to route to two stable Pods alone")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              Endpoints endpoints = admin.endpoints().inNamespace(GRAY_NS).withName(GRAY).get();
              if (endpoints == null) {
                return false;
              }
              List<String> ready =
                  endpoints.getSubsets().stream()
                      .flatMap(s -> s.getAddresses().stream())
                      .map(a -> a.getTargetRef() == null ? "" : a.getTargetRef().getName())
                      .toList();
              boolean notReady =
                  endpoints.getSubsets().stream()
                      .anyMatch(s -> !s.getNotReadyAddresses().isEmpty());
              return ready.size() == 2
                  && !notReady
                  && ready.stream().noneMatch(n -> n.startsWith(GRAY + "-canary-"));
            });
  }

  /** The gray WebService's status.rollout, as one read saw it (fields null when absent). */
  private record Rollout(String phase, String canaryRevision, String message) {}

  private static Rollout rollout() {
    GenericKubernetesResource ws = Resources.get(admin, API, "WebService", GRAY_NS, GRAY);
    if (ws != null
        && ws.getAdditionalProperties().get("status") instanceof Map<?, ?> status
        && status.get("rollout") instanceof Map<?, ?> r) {
      return new Rollout(
          text(r.get("phase")), text(r.get("canaryRevision")), text(r.get("message")));
    }
    return new Rollout(null, null, null);
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }

  /** An Event: when it was first written and its reason. */
  private record SeenEvent(Instant at, String reason) {

    @Override
    public String toString() {
      return reason + " " + at;
    }
  }

  /**
   * What starts a case's clock, oldest first: the Events about its Pods, or the ReplicaSet
   * controller's FailedCreate Events about its ReplicaSets.
   */
  private static List<SeenEvent> firstSigns(String ns, StartCase c) {
    List<? extends HasMetadata> about =
        c.first() == FirstSign.POD_EVENT
            ? pods(ns, c.name())
            : admin
                .apps()
                .replicaSets()
                .inNamespace(ns)
                .withLabel(INSTANCE, c.name())
                .list()
                .getItems();
    return about.stream()
        .flatMap(
            o ->
                admin
                    .v1()
                    .events()
                    .inNamespace(ns)
                    .withField("involvedObject.uid", o.getMetadata().getUid())
                    .list()
                    .getItems()
                    .stream())
        .filter(e -> c.first() == FirstSign.POD_EVENT || "FailedCreate".equals(e.getReason()))
        .flatMap(e -> when(e).map(at -> new SeenEvent(at, e.getReason())).stream())
        .sorted(Comparator.comparing(SeenEvent::at))
        .toList();
  }

  /**
   * When an Event was first written: the scheduler writes events.k8s.io Events (a microsecond
   * eventTime), the kubelet core Events (firstTimestamp, in whole seconds).
   */
  private static Optional<Instant> when(Event e) {
    if (e.getEventTime() != null && e.getEventTime().getTime() != null) {
      return Optional.of(Instant.parse(e.getEventTime().getTime()));
    }
    return Optional.ofNullable(e.getFirstTimestamp()).map(Instant::parse);
  }

  private static List<Pod> pods(String ns, String webService) {
    return admin.pods().inNamespace(ns).withLabel(INSTANCE, webService).list().getItems();
  }

  /** What a person would look at: the WebService's status and its Pods. */
  private static void explain(String ns, String webService) {
    GenericKubernetesResource ws = Resources.get(admin, API, "WebService", ns, webService);
    System.err.println(
        "----- WebService "
            + ns
            + "/"
            + webService
            + " status: "
            + (ws == null ? "none" : ws.getAdditionalProperties().get("status")));
    pods(ns, webService).forEach(platform::describe);
  }
}
