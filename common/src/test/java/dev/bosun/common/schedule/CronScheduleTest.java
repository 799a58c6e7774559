package dev.bosun.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CronScheduleTest {

  private static ZonedDateTime at(String iso) {
    return ZonedDateTime.parse(iso);
  }

  @ParameterizedTest(name = "{0} after {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "*/15 * * * *        | 2026-03-01T10:07:30Z | 2026-03-01T10:15Z",
        "0 */6 * * *         | 2026-03-01T10:07:00Z | 2026-03-01T12:00Z",
        "30 2 * * *          | 2026-03-01T02:30:00Z | 2026-03-02T02:30Z",
        "0 0 1 * *           | 2026-01-31T23:59:00Z | 2026-02-01T00:00Z",
        "0 0 31 * *          | 2026-03-31T00:00:00Z | 2026-05-31T00:00Z",
        "0 0 * * 0           | 2026-03-04T12:00:00Z | 2026-03-08T00:00Z",
        "0 0 * * 7           | 2026-03-04T12:00:00Z | 2026-03-08T00:00Z",
        "0 0 * * MON-FRI     | 2026-03-06T12:00:00Z | 2026-03-09T00:00Z",
        "0 0 * * sun-tue     | 2026-03-04T12:00:00Z | 2026-03-08T00:00Z",
        "0 0 * * SAT,SUN     | 2026-03-04T12:00:00Z | 2026-03-07T00:00Z",
        "0 12 * JAN,JUL *    | 2026-02-01T00:00:00Z | 2026-07-01T12:00Z",
        "0 12 1 mar-may *    | 2026-06-01T00:00:00Z | 2027-03-01T12:00Z",
        "5-10/5 1 * * *      | 2026-03-01T01:05:00Z | 2026-03-01T01:10Z",
        "5/20 * * * *        | 2026-03-01T01:45:00Z | 2026-03-01T02:05Z",
        "0 9-17/4,20 * * *   | 2026-03-01T17:00:00Z | 2026-03-01T20:00Z",
        "0 0 29 2 *          | 2026-03-01T00:00:00Z | 2028-02-29T00:00Z",
        "0 0 29 2 *          | 2028-02-29T00:00:00Z | 2032-02-29T00:00Z",
        "@hourly             | 2026-03-01T10:00:00Z | 2026-03-01T11:00Z",
        "@daily              | 2026-03-01T10:00:00Z | 2026-03-02T00:00Z",
        "@midnight           | 2026-03-01T10:00:00Z | 2026-03-02T00:00Z",
        "@DAILY              | 2026-03-01T10:00:00Z | 2026-03-02T00:00Z",
        "@weekly             | 2026-03-04T10:00:00Z | 2026-03-08T00:00Z",
        "@monthly            | 2026-03-04T10:00:00Z | 2026-04-01T00:00Z",
        "@yearly             | 2026-03-04T10:00:00Z | 2027-01-01T00:00Z",
        "@annually           | 2026-03-04T10:00:00Z | 2027-01-01T00:00Z",
      })
  void nextFiringTime(String expression, String after, String expected) {
    assertThat(CronSchedule.parse(expression).next(at(after))).isEqualTo(at(expected));
  }

  // Both day fields restricted: a day matching either fires. A day field starting with * (Vixie
  // cron) is no restriction of its own, so */2 with a weekday needs an odd day that is that
  // weekday.
  @ParameterizedTest(name = "{0}: {1} after {2} -> {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        "13th OR Friday        | 0 0 13 * 5     | 2026-03-01T00:00:00Z     | 2026-03-06T00:00Z",
        "13th OR Friday        | 0 0 13 * 5     | 2026-03-10T00:00:00Z     | 2026-03-13T00:00Z",
        "odd AND Monday        | 0 0 */2 * 1    | 2026-03-01T00:00:00Z     | 2026-03-09T00:00Z",
        "odd OR Monday         | 0 0 1-31/2 * 1 | 2026-03-01T00:00:00Z     | 2026-03-02T00:00Z",
        "odd AND Sun/Wed/Sat   | 0 0 */2 * */3  | 2026-03-02T00:00:00Z     | 2026-03-07T00:00Z",
        "Feb 29th OR a Monday  | 0 0 29 2 1     | 2026-03-01T00:00:00Z     | 2027-02-01T00:00Z",
        "not its own next      | 0 * * * *      | 2026-03-01T10:00:00Z     | 2026-03-01T11:00Z",
        "seconds do not count  | 0 * * * *      | 2026-03-01T10:59:59.999Z | 2026-03-01T11:00Z",
      })
  void daysAndMinutesAsCronReadsThem(String why, String expression, String after, String next) {
    assertThat(CronSchedule.parse(expression).next(at(after))).as(why).isEqualTo(at(next));
  }

  @Test
  void readsTheScheduleInUtcWhateverTheZoneOfTheTimeGiven() {
    // Berlin moves its clocks at 02:00 on 2026-03-29; the schedule's 02:30 is UTC and exists.
    ZonedDateTime after = ZonedDateTime.parse("2026-03-29T01:00:00+01:00[Europe/Berlin]");
    assertThat(CronSchedule.parse("30 2 * * *").next(after)).isEqualTo(at("2026-03-29T02:30Z"));
  }

  @Test
  void keepsTheExpressionAsWritten() {
    assertThat(CronSchedule.parse(" @Daily ")).hasToString("@Daily");
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''              | empty",
        "* * * *         | has 4 fields",
        "* * * * * *     | has 6 fields",
        "60 * * * *      | invalid minute field '60' in schedule '60 * * * *': it takes 0-59",
        "* 24 * * *      | invalid hour field '24'",
        "* * 0 * *       | invalid day of month field '0'",
        "* * * 13 *      | invalid month field '13'",
        "* * * * 8       | invalid day of week field '8'",
        "*/0 * * * *     | invalid minute field '*/0'",
        "10-5 * * * *    | invalid minute field '10-5'",
        "a * * * *       | invalid minute field 'a'",
        "1,,2 * * * *    | invalid minute field '1,,2'",
        "* * * FOO *     | invalid month field 'FOO'",
        "0 0 * * FRI-SUN | invalid day of week field 'FRI-SUN'",
        "0 0 * * MONDAY  | invalid day of week field 'MONDAY'",
        "0 0 ? * *       | invalid day of month field '?'",
        "0 0 L * *       | invalid day of month field 'L'",
        "0 0 * * 5#2     | invalid day of week field '5#2'",
        "0 0 30 2 *      | never fires",
        "0 0 31 4,6 *    | never fires",
        "@fortnightly    | unknown schedule macro",
        "@reboot         | unknown schedule macro",
      })
  void rejectsWhatCronWouldNotRunAndSaysWhy(String expression, String message) {
    assertThatThrownBy(() -> CronSchedule.parse(expression))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message)
        // Status messages carry this text: none of cron-utils' own wording.
        .hasMessageNotContaining("Failed to parse")
        .hasMessageNotContaining("Invalid")
        .hasMessageNotContaining("not in range");
  }
}
