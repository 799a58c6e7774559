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
        "*/15 * * * *   | 2026-03-01T10:07:30Z | 2026-03-01T10:15Z",
        "0 */6 * * *    | 2026-03-01T10:07:00Z | 2026-03-01T12:00Z",
        "30 2 * * *     | 2026-03-01T02:30:00Z | 2026-03-02T02:30Z",
        "0 0 1 * *      | 2026-01-31T23:59:00Z | 2026-02-01T00:00Z",
        "0 0 * * 0      | 2026-03-04T12:00:00Z | 2026-03-08T00:00Z",
        "0 0 * * 7      | 2026-03-04T12:00:00Z | 2026-03-08T00:00Z",
        "0 0 * * MON-FRI| 2026-03-06T12:00:00Z | 2026-03-09T00:00Z",
        "0 12 * JAN,JUL *| 2026-02-01T00:00:00Z | 2026-07-01T12:00Z",
        "5-10/5 1 * * * | 2026-03-01T01:05:00Z | 2026-03-01T01:10Z",
        "0 0 29 2 *     | 2026-03-01T00:00:00Z | 2028-02-29T00:00Z",
        "@hourly        | 2026-03-01T10:00:00Z | 2026-03-01T11:00Z",
        "@daily         | 2026-03-01T10:00:00Z | 2026-03-02T00:00Z",
        "@weekly        | 2026-03-04T10:00:00Z | 2026-03-08T00:00Z",
        "@monthly       | 2026-03-04T10:00:00Z | 2026-04-01T00:00Z",
        "@yearly        | 2026-03-04T10:00:00Z | 2027-01-01T00:00Z",
      })
  void nextFiringTime(String expression, String after, String expected) {
    assertThat(CronSchedule.parse(expression).next(at(after))).isEqualTo(at(expected));
  }

  @Test
  void bothDayFieldsRestrictedMeansEither() {
    // The 13th, or any Friday: as cron reads it.
    CronSchedule s = CronSchedule.parse("0 0 13 * 5");
    assertThat(s.next(at("2026-03-01T00:00:00Z"))).isEqualTo(at("2026-03-06T00:00Z")); // Friday
    assertThat(s.next(at("2026-03-10T00:00:00Z"))).isEqualTo(at("2026-03-13T00:00Z")); // the 13th
  }

  @Test
  void aTimeExactlyOnTheScheduleIsNotItsOwnNext() {
    assertThat(CronSchedule.parse("0 * * * *").next(at("2026-03-01T10:00:00Z")))
        .isEqualTo(at("2026-03-01T11:00Z"));
  }

  @Test
  void followsTheZoneAcrossDaylightSavingTime() {
    // 02:30 does not exist in Berlin on 2026-03-29: the next existing 02:xx is a day later.
    ZonedDateTime after = ZonedDateTime.parse("2026-03-28T03:00:00+01:00[Europe/Berlin]");
    ZonedDateTime next = CronSchedule.parse("30 2 * * *").next(after);
    assertThat(next.getHour()).isEqualTo(2);
    assertThat(next.getMinute()).isEqualTo(30);
    assertThat(next.toLocalDate().toString()).isEqualTo("2026-03-30");
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''              | empty",
        "* * * *         | has 4 fields",
        "* * * * * *     | has 6 fields",
        "60 * * * *      | invalid minute field '60'",
        "* 24 * * *      | invalid hour field '24'",
        "* * 0 * *       | invalid day of month field '0'",
        "* * * 13 *      | invalid month field '13'",
        "* * * * 8       | invalid day of week field '8'",
        "*/0 * * * *     | invalid minute field '0'",
        "10-5 * * * *    | runs backwards",
        "a * * * *       | not a number",
        "* * * FOO *     | invalid month field 'FOO'",
        "0 0 30 2 *      | never fires",
        "@fortnightly    | unknown schedule macro",
      })
  void rejectsWhatCronWouldNotRunAndSaysWhy(String expression, String message) {
    assertThatThrownBy(() -> CronSchedule.parse(expression))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
