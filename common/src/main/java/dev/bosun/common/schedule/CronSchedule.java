package dev.bosun.common.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A five-field cron schedule (minute hour day-of-month month day-of-week) or one of the macros
 * {@code @hourly @daily @midnight @weekly @monthly @yearly @annually}, always read in UTC.
 *
 * <p>cron-utils (its UNIX definition) parses the fields and computes the fire times; this class
 * adds the macros, reads weekday names as cron does (SUN is 0) and says in words which field is
 * wrong. Days follow Vixie cron: when both day fields are restricted a day matching either one
 * fires, and a day field that starts with {@code *} (such as {@code *}{@code /2}) does not count as
 * restricted, so a day must then match both.
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
  private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");
  private static final Pattern DAY_NAME =
      Pattern.compile(String.join("|", DAYS), Pattern.CASE_INSENSITIVE);
  private static final List<Field> FIELDS =
      List.of(
          new Field("minute", "0-59"),
          new Field("hour", "0-23"),
          new Field("day of month", "1-31"),
          new Field("month", "1-12 or JAN-DEC"),
          new Field("day of week", "0-7 or SUN-SAT (0 and 7 are Sunday)"));
  private static final CronDefinition UNIX =
      CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX);
  private static final CronParser EITHER_DAY = new CronParser(UNIX);

  /** The same fields, a day matching both day fields: for a day field that starts with *. */
  private static final CronParser BOTH_DAYS =
      new CronParser(
          new CronDefinition(
              List.copyOf(UNIX.getFieldDefinitions()),
              UNIX.getCronConstraints(),
              UNIX.getCronNicknames(),
              true));

  private final String expression;
  private final ExecutionTime times;

  private CronSchedule(String expression, ExecutionTime times) {
    this.expression = expression;
    this.times = times;
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
    String[] numbered = fields.clone();
    numbered[4] = numberedDays(fields[4]);
    CronParser parser =
        fields[2].startsWith("*") || fields[4].startsWith("*") ? BOTH_DAYS : EITHER_DAY;
    CronSchedule schedule;
    try {
      schedule =
          new CronSchedule(
              trimmed, ExecutionTime.forCron(parser.parse(String.join(" ", numbered))));
    } catch (IllegalArgumentException e) {
      throw invalid(trimmed, fields, numbered); // the library's text names no field
    }
    schedule.next(ZonedDateTime.parse("2000-01-01T00:00:00Z")); // throws when it never fires
    return schedule;
  }

  /**
   * The first time strictly after {@code after} (to the minute, in UTC) when the schedule fires.
   */
  public ZonedDateTime next(ZonedDateTime after) {
    ZonedDateTime from = after.withZoneSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES);
    return times
        .nextExecution(from)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "schedule '"
                        + expression
                        + "' never fires (check the day of month against the month)"));
  }

  @Override
  public String toString() {
    return expression;
  }

  /** Weekday names as numbers: cron-utils reads SUN as 7, which makes SUN-TUE run backwards. */
  private static String numberedDays(String field) {
    return DAY_NAME
        .matcher(field)
        .replaceAll(m -> String.valueOf(DAYS.indexOf(m.group().toUpperCase(Locale.ROOT))));
  }

  /** Names the first field that cron-utils rejects on its own (all others {@code *}). */
  private static IllegalArgumentException invalid(
      String expression, String[] fields, String[] numbered) {
    for (int i = 0; i < fields.length; i++) {
      String[] alone = {"*", "*", "*", "*", "*"};
      alone[i] = numbered[i];
      try {
        EITHER_DAY.parse(String.join(" ", alone));
      } catch (IllegalArgumentException e) {
        Field field = FIELDS.get(i);
        return new IllegalArgumentException(
            "invalid "
                + field.name()
                + " field '"
                + fields[i]
                + "' in schedule '"
                + expression
                + "': it takes "
                + field.values()
                + ", written as *, a value, a low-high range, a comma list or a step like */15");
      }
    }
    return new IllegalArgumentException("schedule '" + expression + "' is not a cron expression");
  }

  /** A field's name and the values it takes, for messages. */
  private record Field(String name, String values) {}
}
