package dev.bosun.common.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CRD schema defaults of the generated model classes, parsed as the JSON they are.
 *
 * <p>The java-generator initialises each defaulted field with {@code Serialization.unmarshal(json,
 * type)}, and fabric8 parses any text that does not start with a brace or a bracket (every enum or
 * string default) as YAML, building a new YAML loader each time. Those initialisers run whenever a
 * model object is constructed: for every watch event, clone and status write. In the WebService
 * benchmark they took a seventh of the JVM's CPU samples while the operator ran. The build points
 * the generated initialisers here instead (the parent POM's {@code schema-defaults} step).
 */
public final class SchemaDefaults {

  private record Key(String json, Class<?> type) {}

  /** Values no caller can change, parsed once. */
  private static final Map<Key, Object> IMMUTABLE = new ConcurrentHashMap<>();

  private static final Set<Class<?>> VALUE_TYPES =
      Set.of(
          String.class,
          Boolean.class,
          Integer.class,
          Long.class,
          Double.class,
          Float.class,
          Short.class,
          Byte.class,
          BigInteger.class,
          BigDecimal.class);

  private SchemaDefaults() {}

  /**
   * The default {@code json} as a {@code type}: the same value each time for enums, strings,
   * numbers and booleans, a new object each time for anything a caller could change.
   */
  public static <T> T parse(String json, Class<T> type) {
    if (!immutable(type)) {
      return read(json, type);
    }
    return type.cast(IMMUTABLE.computeIfAbsent(new Key(json, type), k -> read(json, type)));
  }

  private static boolean immutable(Class<?> type) {
    return type.isEnum() || VALUE_TYPES.contains(type);
  }

  private static <T> T read(String json, Class<T> type) {
    try {
      return Serialization.jsonMapper().readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the schema default " + json + " is not a " + type.getSimpleName(), e);
    }
  }
}
