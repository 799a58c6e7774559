package dev.bosun.e2e;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which fields of an object as it was stored are missing or different when it is read back (after
 * an upgrade: through the new schema, or through the new Java types). Fields only the read-back
 * has, such as defaults a new schema adds, are not losses.
 */
final class StoredFields {

  private StoredFields() {}

  /** Each field of {@code stored} that {@code readBack} lost or changed, as "path: was → now". */
  static List<String> lostOrChanged(Object stored, Object readBack) {
    List<String> out = new ArrayList<>();
    compare("", stored, readBack, out);
    return out;
  }

  private static void compare(String path, Object stored, Object readBack, List<String> out) {
    if (stored instanceof Map<?, ?> was) {
      if (!(readBack instanceof Map<?, ?> now)) {
        out.add(path + ": " + was + " → " + readBack);
        return;
      }
      was.forEach(
          (key, value) ->
              compare(path.isEmpty() ? "" + key : path + "." + key, value, now.get(key), out));
    } else if (stored instanceof List<?> was) {
      if (!(readBack instanceof List<?> now) || now.size() != was.size()) {
        out.add(path + ": " + was + " → " + readBack);
        return;
      }
      for (int i = 0; i < was.size(); i++) {
        compare(path + "[" + i + "]", was.get(i), now.get(i), out);
      }
    } else if (!sameValue(stored, readBack)) {
      out.add(path + ": " + stored + " → " + (readBack == null ? "(absent)" : readBack));
    }
  }

  // JSON numbers come back as Integer or Long depending on the reader: compare their values.
  private static boolean sameValue(Object stored, Object readBack) {
    if (stored instanceof Number a && readBack instanceof Number b) {
      return new BigDecimal(a.toString()).compareTo(new BigDecimal(b.toString())) == 0;
    }
    return stored == null ? readBack == null : stored.equals(readBack);
  }
}
