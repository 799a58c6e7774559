package dev.bosun.mysql.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.sql.MariaDbDialect;
import dev.bosun.mysql.sql.MySql84Dialect;
import dev.bosun.mysql.topology.Address;
import org.junit.jupiter.api.Test;

/** The operator's JDBC URL per flavour. */
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
}
