package dev.bosun.etcd.client;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An alarm etcd raised for a member (NOSPACE when the database exceeded its quota, CORRUPT).
 *
 * @param memberId the member it concerns
 * @param member that member's name (empty when unknown)
 * @param type NOSPACE, CORRUPT
 */
public record EtcdAlarm(long memberId, String member, String type) {

  public static final String NOSPACE = "NOSPACE";

  /** How etcd lists an active alarm among a member's status errors. */
  private static final Pattern TEXT = Pattern.compile("memberID:(\\d+) alarm:([A-Z]+)");

  /** The alarm a status error describes, if it is one. */
  public static Optional<EtcdAlarm> parse(String error) {
    Matcher m = TEXT.matcher(error);
    if (!m.find()) {
      return Optional.empty();
    }
    return Optional.of(new EtcdAlarm(Long.parseUnsignedLong(m.group(1)), "", m.group(2)));
  }

  /** As the status lists it: {@code <member>:<type>}. */
  @Override
  public String toString() {
    return (member.isEmpty() ? Long.toHexString(memberId) : member) + ":" + type;
  }
}
