package dev.bosun.common.dependent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.FieldsV1;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * A managedFields entry's field set kept as its JSON text and read back on demand. The set is a
 * tree of maps, one per field an owner set (about a hundred for a Deployment); a cache that keeps
 * it for JOSDK's server-side-apply matcher, which reads it only when it compares, holds one string
 * instead.
 */
final class CompactFieldsV1 extends FieldsV1 {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> TREE = new TypeReference<>() {};

  private final String json;

  CompactFieldsV1(Map<String, Object> fields) {
    // Shared: children of the same shape have the same field set (it names fields and list keys,
    // not values), so a cache of a thousand Deployments holds their text once.
    this.json = jsonOf(fields).intern();
  }

  /** A field set's JSON text, as a compacted one holds it. */
  static String jsonOf(Map<String, Object> fields) {
    try {
      return JSON.writeValueAsString(fields);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The field set as JSON text. */
  String json() {
    return json;
  }

  /** A fresh tree each time: the matcher walks it once, and nothing here holds on to it. */
  @Override
  public Map<String, Object> getAdditionalProperties() {
    try {
      return JSON.readValue(json, TREE);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void setAdditionalProperty(String name, Object value) {
    throw new UnsupportedOperationException("a cached field set is read-only");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CompactFieldsV1 other && json.equals(other.json);
  }

  @Override
  public int hashCode() {
    return json.hashCode();
  }
}
