package dev.bosun.common.backup;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The status every backup kind has, as {@link BackupReconciler} reads and writes it: the shared
 * fields typed, a kind's own fields (a GTID, a revision) carried by name. Converted to and from a
 * kind's generated status type through JSON, which both spell alike (one backup API).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonAutoDetect(
    fieldVisibility = JsonAutoDetect.Visibility.ANY,
    getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
public final class BackupStatus {

  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  Long observedGeneration;
  List<Condition> conditions;
  BackupRecord lastBackup;
  List<BackupRecord> backups;
  Integer backupCount;

  @JsonFormat(shape = JsonFormat.Shape.STRING, pattern = "yyyy-MM-dd'T'HH:mm:ssXXX")
  ZonedDateTime nextScheduleTime;

  BackupProgress inProgress;

  @JsonIgnore private final Map<String, Object> kindFields = new LinkedHashMap<>();

  /** A field of the backup kind's own (for example {@code lastGtid}), by its name in the API. */
  @JsonAnySetter
  public void set(String field, Object value) {
    kindFields.put(field, value);
  }

  @JsonAnyGetter
  Map<String, Object> kindFields() {
    return kindFields;
  }

  /** {@code status} (a kind's generated status, or null) read as a copy. */
  public static BackupStatus of(Object status) {
    return status == null ? new BackupStatus() : JSON.convertValue(status, BackupStatus.class);
  }

  /** A copy of this status. */
  public BackupStatus copy() {
    return JSON.convertValue(this, BackupStatus.class);
  }

  /** This status as the kind's generated status type. */
  public <S> S as(Class<S> type) {
    return JSON.convertValue(this, type);
  }
}
