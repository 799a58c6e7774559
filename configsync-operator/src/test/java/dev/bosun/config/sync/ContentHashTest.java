package dev.bosun.config.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContentHashTest {

  private static String hash(String section, Map<String, String> entries) {
    return ContentHash.start().add(section, entries).hex();
  }

  @Test
  void equalContentInAnyInsertionOrderHashesEqual() {
    Map<String, String> forward = new LinkedHashMap<>();
    forward.put("a", "1");
    forward.put("b", "2");
    forward.put("c", "3");
    Map<String, String> backward = new LinkedHashMap<>();
    backward.put("c", "3");
    backward.put("b", "2");
    backward.put("a", "1");

    assertThat(hash("data", forward)).isEqualTo(hash("data", backward));
    assertThat(hash("data", new HashMap<>(backward))).isEqualTo(hash("data", forward));
  }

  @Test
  void theSameInputAlwaysGivesTheSameHash() {
    assertThat(hash("data", Map.of("k", "v"))).isEqualTo(hash("data", Map.of("k", "v")));
    assertThat(ContentHash.start().add("type", "Opaque").hex())
        .isEqualTo(ContentHash.start().add("type", "Opaque").hex());
  }

  @Test
  void anyKeyValueOrSectionChangeChangesTheHash() {
    String base = hash("data", Map.of("a", "1", "b", "2"));

    assertThat(hash("data", Map.of("a", "1", "b", "3"))).as("value").isNotEqualTo(base);
    assertThat(hash("data", Map.of("a", "1", "c", "2"))).as("key").isNotEqualTo(base);
    assertThat(hash("data", Map.of("a", "1"))).as("entry removed").isNotEqualTo(base);
    assertThat(hash("data", Map.of("a", "1", "b", "2", "c", "3")))
        .as("entry added")
        .isNotEqualTo(base);
    assertThat(hash("data", Map.of("a", "2", "b", "1"))).as("values swapped").isNotEqualTo(base);
    assertThat(hash("other", Map.of("a", "1", "b", "2"))).as("section").isNotEqualTo(base);
    assertThat(hash("data", Map.of("a", "1", "b", ""))).as("empty value").isNotEqualTo(base);
  }

  @Test
  void singleValuesAreHashedToo() {
    assertThat(ContentHash.start().add("type", "Opaque").hex())
        .isNotEqualTo(ContentHash.start().add("type", "kubernetes.io/tls").hex());
    assertThat(ContentHash.start().add("type", (String) null).hex())
        .as("null value is the empty string")
        .isEqualTo(ContentHash.start().add("type", "").hex());
  }

  @Test
  void boundariesBetweenStringsMatter() {
    assertThat(hash("s", Map.of("ab", "c"))).isNotEqualTo(hash("s", Map.of("a", "bc")));
    assertThat(hash("s", Map.of("a", "b:c"))).isNotEqualTo(hash("s", Map.of("a:b", "c")));
    assertThat(ContentHash.start().add("ab", "c").hex())
        .isNotEqualTo(ContentHash.start().add("a", "bc").hex());
    assertThat(hash("sa", Map.of("b", "c"))).isNotEqualTo(hash("s", Map.of("ab", "c")));
  }

  @Test
  void boundariesBetweenSectionsMatter() {
    String inFirst = ContentHash.start().add("a", Map.of("b", "c")).add("b", Map.of()).hex();
    String inSecond = ContentHash.start().add("a", Map.of()).add("b", Map.of("c", "b")).hex();

    assertThat(inFirst).isNotEqualTo(inSecond);
  }

  @Test
  void sectionOrderMatters() {
    assertThat(ContentHash.start().add("x", Map.of("k", "v")).add("y", Map.of()).hex())
        .isNotEqualTo(ContentHash.start().add("y", Map.of()).add("x", Map.of("k", "v")).hex());
  }

  @Test
  void nullMapIsTheEmptyMap() {
    assertThat(hash("data", null)).isEqualTo(hash("data", Map.of()));
    assertThat(hash("data", null)).isNotEqualTo(hash("data", Map.of("k", "v")));
  }

  @Test
  void hexIs32LowercaseHexCharacters() {
    assertThat(hash("data", Map.of("k", "v"))).matches("[0-9a-f]{32}");
    assertThat(ContentHash.start().hex()).matches("[0-9a-f]{32}");
  }

  @Test
  void hexIsTheFirst16BytesOfSha256OfTheLengthPrefixedStrings() throws Exception {
    // "1:s" "1:1" (one entry) "1:k" "1:v": the documented encoding, pinned so a change of it is
    // noticed (a changed hash rewrites every copy and rolls every monitored workload once).
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    byte[] full = sha.digest("1:s1:11:k1:v".getBytes(StandardCharsets.UTF_8));
    String expected = HexFormat.of().formatHex(full, 0, 16);

    assertThat(hash("s", Map.of("k", "v"))).isEqualTo(expected);
  }
}
