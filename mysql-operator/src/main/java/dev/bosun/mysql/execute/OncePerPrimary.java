package dev.bosun.mysql.execute;

import dev.bosun.mysql.plan.Address;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers, per cluster, which statements were last run on which primary in this process, so
 * statements a steady cluster needs once (accounts, grants) cost nothing round after round, and run
 * again on a new primary, after a change, or after an operator restart (they are idempotent). Only
 * a digest is kept: the statements may hold passwords.
 */
final class OncePerPrimary {

  private final Map<String, String> done = new ConcurrentHashMap<>();

  /** Whether {@code statements} still have to run on {@code primary} for cluster {@code uid}. */
  boolean needed(String uid, Address primary, List<String> statements) {
    return !key(primary, statements).equals(done.get(uid));
  }

  /** Records that they ran. */
  void ran(String uid, Address primary, List<String> statements) {
    done.put(uid, key(primary, statements));
  }

  /** Forgets a cluster. */
  void forget(String uid) {
    done.remove(uid);
  }

  private static String key(Address primary, List<String> statements) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String s : statements) {
        sha.update(s.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return primary.host() + ":" + primary.port() + "/" + HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
