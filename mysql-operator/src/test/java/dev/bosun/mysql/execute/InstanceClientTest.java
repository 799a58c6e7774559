package dev.bosun.mysql.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.client.MySql84Dialect;
import dev.bosun.mysql.plan.Address;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import org.junit.jupiter.api.Test;

/** The operator's JDBC URL per flavour, and what its errors say. */
class InstanceClientTest {

  private final Address a = new Address("db-0.db-headless.ns.svc", 3306);

  @Test
  void mySql84ConnectionsCopeWithCachingSha2Password() {
    assertThat(InstanceClient.url(a, new MySql84Dialect().jdbcOptions()))
        .isEqualTo("jdbc:mariadb://db-0.db-headless.ns.svc:3306/?allowPublicKeyRetrieval=true");
  }

  @Test
  void mariaDbConnectionsNeedNoOption() {
    assertThat(InstanceClient.url(a, new MariaDbDialect().jdbcOptions()))
        .isEqualTo("jdbc:mariadb://db-0.db-headless.ns.svc:3306/");
  }

  @Test
  void anErrorNamesItsCauseWithoutTheDriversText() {
    assertThat(
            InstanceClient.safe(
                new SQLNonTransientConnectionException(
                    "Socket fail to connect to db-1:3306. Connection refused", "08000")))
        .isEqualTo("no connection to the server (SQL state 08000)");
    assertThat(InstanceClient.safe(new SQLTimeoutException("Read timed out", "HY000")))
        .isEqualTo("no answer within the timeout (SQL state HY000)");
    assertThat(
            InstanceClient.safe(
                new SQLException("Access denied for user 'operator'@'10.0.0.7'", "28000", 1045)))
        .isEqualTo(
            "SQL error 1045 (state 28000): the operator's user was refused; check the"
                + " <cluster>-operator Secret");
    assertThat(
            InstanceClient.safe(
                new SQLException(
                    "Duplicate entry 'secret-value' for key 'PRIMARY'", "23000", 1062)))
        .isEqualTo("SQL error 1062 (state 23000)")
        .doesNotContain("secret-value");
  }

  @Test
  void aFailedConnectSaysWhatTheNetworkAnsweredInWords() {
    SQLNonTransientConnectionException noName =
        new SQLNonTransientConnectionException("Socket fail to connect", "08000");
    noName.initCause(new java.net.UnknownHostException("db-0.db-headless.ns.svc"));
    assertThat(InstanceClient.safe(noName))
        .isEqualTo("no connection to the server: its name did not resolve (SQL state 08000)");
    SQLNonTransientConnectionException timedOut =
        new SQLNonTransientConnectionException("Socket fail to connect", "08000");
    timedOut.initCause(new java.net.SocketTimeoutException("connect timed out"));
    assertThat(InstanceClient.safe(timedOut))
        .isEqualTo(
            "no connection to the server: its address did not answer in time (SQL state 08000)");
  }
}
