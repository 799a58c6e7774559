package dev.bosun.mysql.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** GTID comparisons of both flavours. */
class GtidArithmeticTest {

  private final MariaDbGtids maria = new MariaDbGtids();
  private final MySqlGtids mysql = new MySqlGtids();

  @ParameterizedTest(name = "{0} vs {1} = {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "0-1-10|0-1-10|EQUAL",
        "0-1-11|0-1-10|AHEAD",
        "0-1-9|0-1-10|BEHIND",
        "0-2-10|0-1-10|DIVERGED",
        "''|0-1-1|BEHIND",
        "''|''|EQUAL",
        "0-1-10,1-2-3|0-1-10|AHEAD",
        "0-1-11,1-2-3|0-1-10,1-2-4|DIVERGED",
        "0-2-15|0-1-10|AHEAD"
      })
  void mariaDbPositions(String a, String b, GtidArithmetic.Order expected) {
    assertThat(maria.compare(a, b)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} vs {1} = {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "aaaa:1-10|aaaa:1-10|EQUAL",
        "aaaa:1-11|aaaa:1-10|AHEAD",
        "aaaa:1-5|aaaa:1-10|BEHIND",
        "aaaa:1-10,bbbb:1|aaaa:1-10|AHEAD",
        "aaaa:1-9,bbbb:1|aaaa:1-10|DIVERGED",
        "aaaa:1-3:5-10|aaaa:1-10|BEHIND",
        "aaaa:1-3:4-10|aaaa:1-10|EQUAL",
        "''|aaaa:1|BEHIND"
      })
  void mySqlSets(String a, String b, GtidArithmetic.Order expected) {
    assertThat(mysql.compare(a, b)).isEqualTo(expected);
  }

  @Test
  void mySqlSubtractionFindsErrantTransactionsAnywhereInTheSet() {
    MySqlGtidSet replica = MySqlGtidSet.parse("AAAA:1-100,\ncccc:7");
    MySqlGtidSet primary = MySqlGtidSet.parse("aaaa:1-50:52-200");
    assertThat(replica.minus(primary).toString()).isEqualTo("aaaa:51,cccc:7");
    assertThat(primary.contains(replica)).isFalse();
    assertThat(mysql.hasBeyond("aaaa:1-100,cccc:7", "aaaa:1-50:52-200")).isTrue();
    assertThat(mysql.hasBeyond("aaaa:1-100", "aaaa:1-200")).isFalse();
  }

  @Test
  void mariaDbSeesLocalWritesAsABinlogBeyondTheReplicatedPosition() {
    assertThat(maria.tracksReplicatedPosition()).isTrue();
    assertThat(mysql.tracksReplicatedPosition()).isFalse();
    assertThat(maria.hasBeyond("0-3-11", "0-1-10")).isTrue();
    assertThat(maria.covers("0-1-10", "0-1-10")).isTrue();
    assertThat(maria.isEmpty("")).isTrue();
    assertThat(mysql.isEmpty(null)).isTrue();
  }

  @Test
  void malformedPositionsAreRefused() {
    assertThatThrownBy(() -> maria.compare("0-1", "0-1-1"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MySqlGtidSet.parse("aaaa:5-1"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest(name = "{0} + {1} = {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "0-1-10|0-1-12|0-1-12",
        "0-1-12|0-1-10|0-1-12",
        "''|0-1-3|0-1-3",
        "0-1-10|1-2-5|0-1-10,1-2-5",
        "1-2-5,0-1-10|0-1-11|0-1-11,1-2-5"
      })
  void mariaDbUnionTakesTheLastTransactionOfEachDomain(String a, String b, String expected) {
    assertThat(maria.union(a, b)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} + {1} = {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "aaaa:1-10|aaaa:11-12|aaaa:1-12",
        "aaaa:1-5|aaaa:8-9|aaaa:1-5:8-9",
        "''|bbbb:1-3|bbbb:1-3",
        "aaaa:1-10|bbbb:1-2|aaaa:1-10,bbbb:1-2"
      })
  void mySqlUnionIsTheSetUnion(String a, String b, String expected) {
    assertThat(mysql.union(a, b)).isEqualTo(expected);
  }

  @Test
  void theCommonHistoryIsTheLowerSequencePerDomainOnlyWhenOneServerWroteBoth() {
    assertThat(maria.common("0-1-12,1-2-4", "0-1-9")).isEqualTo("0-1-9");
    // Two servers' last transactions do not say where the histories forked.
    assertThat(maria.common("0-3-10", "0-1-9")).isEmpty();
    assertThat(maria.common("0-3-10,1-1-4", "0-1-10,1-1-7")).isEqualTo("1-1-4");
    assertThat(maria.common("0-1-10", "")).isEmpty();
    assertThat(mysql.common("aaaa:1-100,bbbb:1-3", "aaaa:1-90")).isEqualTo("aaaa:1-90");
  }

  @Test
  void oneTransactionIsBeyondAReferenceWhenItsDomainIsAheadOrUnknown() {
    assertThat(MariaDbGtids.beyond("0-2-6", "0-1-5")).isTrue();
    assertThat(MariaDbGtids.beyond("0-1-5", "0-1-5")).isFalse();
    assertThat(MariaDbGtids.beyond("1-1-1", "0-1-5")).isTrue();
  }

  @Test
  void aReferenceAdvancesOnlyAlongTheSameServersHistory() {
    assertThat(MariaDbGtids.advance("0-100-1131", "0-100-1135")).isEqualTo("0-100-1135");
    assertThat(MariaDbGtids.advance("0-100-1131", "0-102-1140")).isEqualTo("0-100-1131");
    assertThat(MariaDbGtids.advance("0-100-1131", "0-100-1100,1-1-5")).isEqualTo("0-100-1131");
    assertThat(MariaDbGtids.advance("", "0-100-5")).isEmpty();
  }
}
