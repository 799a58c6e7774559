package dev.bosun.common.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records core/v1 Events on the objects an operator manages. A repeat of the same reason and
 * message on the same object bumps the count of the existing Event instead of creating a new one,
 * as kubelet and the controllers do, so a flapping resource cannot flood the namespace.
 */
public class EventRecorder {

  /** Whether an Event reports normal progress or something a person should look at. */
  public enum Type {
    Normal,
    Warning
  }

  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
  private static final int REMEMBERED = 2048;

  private final KubernetesClient client;
  private final String component;
  private final Clock clock;
  private final Map<String, Event> recent =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Event> eldest) {
          return size() > REMEMBERED;
        }
      };

  public EventRecorder(KubernetesClient client, String component) {
    this(client, component, Clock.systemUTC());
  }

  public EventRecorder(KubernetesClient client, String component, Clock clock) {
    this.client = client;
    this.component = component;
    this.clock = clock;
  }

  /**
   * Records an Event; failures are logged, never thrown: an Event is not worth a failed reconcile.
   */
  public void record(HasMetadata about, Type type, String reason, String message) {
    String key =
        about.getMetadata().getUid() + '\u0000' + type + '\u0000' + reason + '\u0000' + message;
    String now =
        DateTimeFormatter.ISO_INSTANT.format(Instant.now(clock).truncatedTo(ChronoUnit.SECONDS));
    String namespace = about.getMetadata().getNamespace();
    try {
      Event previous;
      synchronized (recent) {
        previous = recent.get(key);
      }
      Event written =
          previous != null
              ? bump(previous, now)
              : client
                  .v1()
                  .events()
                  .inNamespace(namespace)
                  .resource(newEvent(about, type, reason, message, now))
                  .create();
      synchronized (recent) {
        recent.put(key, written);
      }
    } catch (KubernetesClientException e) {
      // A vanished Event (expired, or namespace going away) is simply forgotten; the next one is
      // new.
      synchronized (recent) {
        recent.remove(key);
      }
      LOG.warn(
          "could not record event {} on {}/{}: {}",
          reason,
          namespace,
          about.getMetadata().getName(),
          e.getMessage());
    }
  }

  /**
   * A merge patch of the bumped Event: one request, and no read (the operators' Roles grant create
   * and patch on Events, not get; an update would read first).
   */
  private Event bump(Event previous, String now) {
    int count = previous.getCount() == null ? 2 : previous.getCount() + 1;
    Event bumped =
        new EventBuilder(previous)
            .withCount(count)
            .withLastTimestamp(now)
            .editMetadata()
            .withResourceVersion(null)
            .endMetadata()
            .build();
    return client
        .v1()
        .events()
        .inNamespace(previous.getMetadata().getNamespace())
        .resource(bumped)
        .patch(PatchContext.of(PatchType.JSON_MERGE));
  }

  /** A first Event about {@code about}, with a count of 1. */
  private Event newEvent(HasMetadata about, Type type, String reason, String message, String now) {
    String namespace = about.getMetadata().getNamespace();
    return new EventBuilder()
        .withNewMetadata()
        .withGenerateName(about.getMetadata().getName() + ".")
        .withNamespace(namespace)
        .endMetadata()
        .withInvolvedObject(
            new ObjectReferenceBuilder()
                .withApiVersion(about.getApiVersion())
                .withKind(about.getKind())
                .withName(about.getMetadata().getName())
                .withNamespace(namespace)
                .withUid(about.getMetadata().getUid())
                .withResourceVersion(about.getMetadata().getResourceVersion())
                .build())
        .withType(type.name())
        .withReason(reason)
        .withMessage(message)
        .withCount(1)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withNewSource()
        .withComponent(component)
        .endSource()
        .withReportingComponent(component)
        .build();
  }

  /** Shorthand for a Normal event. */
  public void normal(HasMetadata about, String reason, String message) {
    record(about, Type.Normal, reason, message);
  }

  /** Shorthand for a Warning event. */
  public void warning(HasMetadata about, String reason, String message) {
    record(about, Type.Warning, reason, Objects.requireNonNull(message));
  }
}
