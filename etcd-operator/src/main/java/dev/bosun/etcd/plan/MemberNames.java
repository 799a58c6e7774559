package dev.bosun.etcd.plan;

import java.util.Collection;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Member names are {@code <cluster>-<index>} and an index is never reused while anything of it
 * remains (a Pod, a volume, a retained volume, a member), so a new member never meets old data.
 */
public final class MemberNames {

  private MemberNames() {}

  public static String name(String cluster, int index) {
    return cluster + "-" + index;
  }

  /** The index of a member name of this cluster, if it is one. */
  public static OptionalInt index(String cluster, String member) {
    Matcher m = Pattern.compile(Pattern.quote(cluster) + "-(0|[1-9][0-9]{0,3})").matcher(member);
    return m.matches() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
  }

  /** True when the name is one this cluster would give a member. */
  public static boolean isOurs(String cluster, String member) {
    return index(cluster, member).isPresent();
  }

  /** The name of the next new member: one past the highest index any of the names uses. */
  public static String next(String cluster, Collection<String> used) {
    int max = -1;
    for (String name : used) {
      OptionalInt i = index(cluster, name);
      if (i.isPresent()) {
        max = Math.max(max, i.getAsInt());
      }
    }
    return name(cluster, max + 1);
  }
}
