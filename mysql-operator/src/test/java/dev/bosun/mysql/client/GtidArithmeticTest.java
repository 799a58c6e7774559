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

  @ParameterizedTest(name = "history {0} holds {1}: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        // A new primary's writes on top of 0-1-100 against the old primary's own 101..105.
        "0-1-105|0-1-100,0-2-103|false",
        "0-1-100,0-2-103|0-1-105|false",
        // The old primary that wrote nothing after the promotion point is held.
        "0-1-100,0-2-103|0-1-100|true",
        "0-1-100|0-1-100,0-2-103|false",
        // A replica that replicated everything, and one that is behind.
        "0-1-100,0-2-103|0-1-100,0-2-103|true",
        "0-1-100,0-2-110|0-1-100,0-2-103|true",
        "''|''|true",
        "0-1-1|''|true",
        "''|0-1-1|false",
        // Domains are separate histories: one diverged domain is enough.
        "0-1-10,1-2-5|0-1-10|true",
        "0-1-10|0-1-10,1-2-5|false",
        "0-1-10,1-2-5,1-3-7|0-1-12,1-2-5|false",
        // The order of a state's entries does not matter.
        "0-2-103,0-1-100|0-1-100,0-2-103|true"
      })
  void mariaDbHistoriesHoldTheLastTransactionOfEveryServer(String a, String b, boolean expected) {
    assertThat(maria.historyCovers(a, b)).isEqualTo(expected);
  }

  @Test
  void whatTwoForkedMariaDbHistoriesShareAndWhatEachHasBeyond() {
    String oldPrimary = "0-1-105";
    String newPrimary = "0-1-100,0-2-103";
    assertThat(maria.historyCommon(oldPrimary, newPrimary)).isEqualTo("0-1-100");
    assertThat(maria.historyCommon(newPrimary, oldPrimary)).isEqualTo("0-1-100");
    assertThat(maria.historyBeyond(oldPrimary, newPrimary)).isEqualTo("0-1-105");
    assertThat(maria.historyBeyond(newPrimary, oldPrimary)).isEqualTo("0-2-103");
    assertThat(maria.historyBeyond(newPrimary, newPrimary)).isEmpty();
    assertThat(maria.historyCommon("0-3-7", "1-3-7")).isEmpty();
    assertThat(maria.historyCommon("0-1-5,1-2-9", "1-2-4,0-1-8")).isEqualTo("0-1-5,1-2-4");
    assertThatThrownBy(() -> maria.historyCovers("0-1", "0-1-1"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void mySqlHistoriesAreTheExecutedSets() {
    String oldPrimary = "aaaa:1-105";
    String newPrimary = "aaaa:1-100,bbbb:1-3";
    assertThat(mysql.historyCovers(oldPrimary, newPrimary)).isFalse();
    assertThat(mysql.historyCovers(newPrimary, oldPrimary)).isFalse();
    assertThat(mysql.historyCovers("aaaa:1-100,bbbb:1-3", "aaaa:1-100")).isTrue();
    assertThat(mysql.historyCovers("", "")).isTrue();
    assertThat(mysql.historyBeyond(oldPrimary, newPrimary)).isEqualTo("aaaa:101-105");
    assertThat(mysql.historyBeyond(newPrimary, oldPrimary)).isEqualTo("bbbb:1-3");
    assertThat(mysql.historyCommon(oldPrimary, newPrimary)).isEqualTo("aaaa:1-100");
  }
}
