package dev.bosun.common.schedule;

import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A five-field cron schedule (minute hour day-of-month month day-of-week, as Kubernetes CronJobs
 * and crontab read it) or one of the macros {@code @hourly @daily @midnight @weekly @monthly
 * @yearly @annually}. The operators schedule backups with it themselves, so no CronJob API is
 * needed. When both day fields are restricted a day matching either one fires, as in cron.
 */
public final class CronSchedule {

  private static final Map<String, String> MACROS =
      Map.of(
          "@hourly", "0 * * * *",
          "@daily", "0 0 * * *",
          "@midnight", "0 0 * * *",
          "@weekly", "0 0 * * 0",
          "@monthly", "0 0 1 * *",
          "@yearly", "0 0 1 1 *",
          "@annually", "0 0 1 1 *");
  private static final List<String> MONTHS =
      List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC");
  private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");

  /** Far enough for any schedule that fires at all (Feb 29 on a Monday recurs within 28 years). */
  private static final int SEARCH_YEARS = 30;

  private final String expression;
  private final BitSet minutes;
  private final BitSet hours;
  private final BitSet daysOfMonth;
  private final BitSet months;
  private final BitSet daysOfWeek;
  private final boolean dayOfMonthRestricted;
  private final boolean dayOfWeekRestricted;

  private CronSchedule(String expression, String[] f) {
    this.expression = expression;
    minutes = field("minute", f[0], 0, 59, List.of());
    hours = field("hour", f[1], 0, 23, List.of());
    daysOfMonth = field("day of month", f[2], 1, 31, List.of());
    months = field("month", f[3], 1, 12, MONTHS);
    daysOfWeek = field("day of week", f[4], 0, 7, DAYS);
    if (daysOfWeek.get(7)) {
      daysOfWeek.set(0); // 7 is Sunday too
    }
    dayOfMonthRestricted = !f[2].startsWith("*");
    dayOfWeekRestricted = !f[4].startsWith("*");
  }

  /**
   * Parses a schedule.
   *
   * @throws IllegalArgumentException with a message naming the field that is wrong, also for a
   *     schedule that can never fire (such as February 30th)
   */
  public static CronSchedule parse(String expression) {
    if (expression == null || expression.isBlank()) {
      throw new IllegalArgumentException("the schedule is empty");
    }
    String trimmed = expression.trim();
    String spec = MACROS.getOrDefault(trimmed.toLowerCase(Locale.ROOT), trimmed);
    if (spec.startsWith("@")) {
      throw new IllegalArgumentException(
          "unknown schedule macro '"
              + trimmed
              + "' (known: "
              + String.join(" ", MACROS.keySet().stream().sorted().toList())
              + ")");
    }
    String[] fields = spec.split("\\s+");
    if (fields.length != 5) {
      throw new IllegalArgumentException(
          "schedule '"
              + trimmed
              + "' has "
              + fields.length
              + " fields; cron takes five: minute hour day-of-month month day-of-week");
    }
    CronSchedule schedule = new CronSchedule(trimmed, fields);
    schedule.next(ZonedDateTime.parse("2000-01-01T00:00:00Z")); // throws when it never fires
    return schedule;
  }

  /** The first time strictly after {@code after} (to the minute) when the schedule fires. */
  public ZonedDateTime next(ZonedDateTime after) {
    ZonedDateTime t = after.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
    int lastYear = t.getYear() + SEARCH_YEARS;
    while (t.getYear() <= lastYear) {
      if (!months.get(t.getMonthValue())) {
        t = t.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).plusMonths(1);
      } else if (!dayMatches(t)) {
        t = t.truncatedTo(ChronoUnit.DAYS).plusDays(1);
      } else if (!hours.get(t.getHour())) {
        t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
      } else if (!minutes.get(t.getMinute())) {
        t = t.plusMinutes(1);
      } else {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "schedule '" + expression + "' never fires (check the day of month against the month)");
  }

  @Override
  public String toString() {
    return expression;
  }

  private boolean dayMatches(ZonedDateTime t) {
    boolean dom = daysOfMonth.get(t.getDayOfMonth());
    boolean dow = daysOfWeek.get(t.getDayOfWeek().getValue() % 7);
    if (dayOfMonthRestricted && dayOfWeekRestricted) {
      return dom || dow;
    }
    return dom && dow;
  }

  private static BitSet field(String name, String text, int min, int max, List<String> names) {
    BitSet values = new BitSet(max + 1);
    for (String part : text.split(",", -1)) {
      String range = part;
      int step = 1;
      int slash = part.indexOf('/');
      if (slash >= 0) {
        range = part.substring(0, slash);
        step = number(name, part.substring(slash + 1), 1, max, List.of());
      }
      int from;
      int to;
      if (range.equals("*")) {
        from = min;
        to = max;
      } else if (range.contains("-")) {
        String[] ends = range.split("-", -1);
        if (ends.length != 2) {
          throw bad(name, part, "a range is written low-high");
        }
        from = number(name, ends[0], min, max, names);
        to = number(name, ends[1], min, max, names);
        if (from > to) {
          throw bad(name, part, "the range runs backwards");
        }
      } else {
        from = number(name, range, min, max, names);
        to = slash >= 0 ? max : from;
      }
      for (int v = from; v <= to; v += step) {
        values.set(v);
      }
    }
    return values;
  }

  private static int number(String name, String text, int min, int max, List<String> names) {
    int named = names.indexOf(text.toUpperCase(Locale.ROOT));
    if (named >= 0) {
      return named + (names.size() == 12 ? 1 : 0);
    }
    try {
      int v = Integer.parseInt(text);
      if (v < min || v > max) {
        throw bad(name, text, "it must be between " + min + " and " + max);
      }
      return v;
    } catch (NumberFormatException e) {
      throw bad(
          name, text, "not a number" + (names.isEmpty() ? "" : " or a name like " + names.get(0)));
    }
  }

  private static IllegalArgumentException bad(String name, String part, String why) {
    return new IllegalArgumentException(
        "invalid " + name + " field '" + part + "' in schedule: " + why);
  }
}
