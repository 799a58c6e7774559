package dev.bosun.web.reconciler;

import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.dependent.CanaryDeploymentDependent;
import dev.bosun.web.rollout.CanaryJudge;
import dev.bosun.web.rollout.CanaryJudge.Criteria;
import dev.bosun.web.rollout.CanaryJudge.Verdict;
import dev.bosun.web.rollout.RolloutState;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.webservicespec.Ports;
import dev.bosun.web.v1alpha1.webservicespec.rollout.Canary;
import dev.bosun.web.v1alpha1.webservicespec.rollout.canary.analysis.Http;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The verdict on the current step of a gray release with {@code rollout.canary.analysis}: the
 * operator's own HTTP checks of the step's ready canary and stable Pods ({@link CanarySampler}),
 * judged by {@link CanaryJudge}, then, when they pass and the spec names one, a Prometheus query
 * ({@link PrometheusGate}). Checks run only while a canary step is in progress.
 */
final class CanaryAnalysis {

  /** Latency above the stable revision's p95 times the ratio that never counts. */
  static final Duration LATENCY_SLACK = Duration.ofMillis(100);

  private CanaryAnalysis() {}

  static Optional<Verdict> of(
      WebService ws,
      Canary settings,
      RolloutState recorded,
      String desiredRevision,
      Collection<Pod> pods,
      CanarySampler sampler,
      PrometheusGate gate) {
    String key = CanaryChecks.key(ws);
    if (settings.getAnalysis() == null
        || recorded.phase() != RolloutState.Phase.PROGRESSING
        || !recorded.isOf(desiredRevision)) {
      sampler.forget(key);
      gate.forget(key);
      return Optional.empty();
    }
    List<Pod> canary = ready(pods, true);
    List<Pod> stable = ready(pods, false);
    if (canary.isEmpty() || stable.isEmpty()) {
      return Optional.of(
          new Verdict.Pending("analysis: waiting for ready canary and stable Pods to check"));
    }
    Http http = settings.getAnalysis().getHttp();
    String step = recorded.canaryRevision() + "@" + recorded.step();
    var samples =
        sampler.samples(
            key,
            new CanarySampler.Target(
                step,
                canary,
                stable,
                http.getPath(),
                containerPort(ws, http.getPort()),
                http.getSamplesPerStep(),
                http.getRequestsPerSecond(),
                // An answer slower than the bound is a failure anyway: wait a little longer only.
                Duration.ofMillis(http.getLatencyBoundMillis()).plusSeconds(1)));
    Verdict answers = CanaryJudge.judge(criteria(http), samples.canary(), samples.stable());
    var prometheus = settings.getAnalysis().getPrometheus();
    if (!(answers instanceof Verdict.Pass) || prometheus == null) {
      return Optional.of(answers);
    }
    // Asked once the HTTP checks have passed: one query per step.
    Verdict query = gate.verdict(key, step, ws, prometheus);
    return Optional.of(
        query instanceof Verdict.Pass
            ? new Verdict.Pass(answers.message() + "; " + query.message())
            : query);
  }

  static Criteria criteria(Http http) {
    return new Criteria(
        http.getExpectedStatus(),
        Duration.ofMillis(http.getLatencyBoundMillis()),
        http.getSamplesPerStep(),
        http.getMaxSuccessRateDropPercent(),
        http.getMaxLatencyRatio(),
        LATENCY_SLACK);
  }

  /** The container port of the named port, the first when none is named. */
  static int containerPort(WebService ws, String name) {
    Ports port =
        ws.getSpec().getPorts().stream()
            .filter(p -> name == null || name.equals(p.getName()))
            .findFirst()
            .orElse(ws.getSpec().getPorts().get(0));
    return port.getContainerPort() != null ? port.getContainerPort() : port.getPort();
  }

  private static List<Pod> ready(Collection<Pod> pods, boolean canary) {
    return pods.stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null)
        .filter(
            p ->
                canary
                    == CanaryDeploymentDependent.CANARY.equals(
                        p.getMetadata().getLabels().get(WebServiceOperator.TRACK)))
        .filter(
            p ->
                Optional.ofNullable(p.getStatus().getConditions()).orElse(List.of()).stream()
                    .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
        .sorted((a, b) -> a.getMetadata().getName().compareTo(b.getMetadata().getName()))
        .toList();
  }
}
