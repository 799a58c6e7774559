package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which transactions of a member's decoded binlog are exported as errant. */
class ErrantBinlogTest {

  /** mariadb-binlog --verbose output of 10.11 (shortened): 0-1-5 replicated, 0-2-6 local. */
  static final String BINLOG =
      String.join(
          "\n",
          "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;",
          "DELIMITER /*!*/;",
          "# at 4",
          "#261125 10:52:56 server id 2  end_log_pos 256 CRC32 0x1 \tStart: binlog v 4, server v"
              + " 10.11.19-MariaDB-log created 261125 10:52:56 at startup",
          "BINLOG '",
          "CL4GaxMBAAAALgAAAAMDAAAAABIAAAAAAAEAA2FwcAABdAACAw8CKAACDB1khQ==",
          "'/*!*/;",
          "# at 997",
          "#261125 10:52:56 server id 1  end_log_pos 1039 CRC32 0x03eae1cf \tGTID 0-1-5 ddl",
          "/*M!100001 SET @@session.gtid_seq_no=5*//*!*/;",
          "# at 1039",
          "#261125 10:52:56 server id 1  end_log_pos 1156 CRC32 0x9848a5e9 \tQuery\tthread_id=5",
          "grant select on app.* to 'appuser'@'%'",
          "/*!*/;",
          "# at 1156",
          "#261125 10:52:57 server id 2  end_log_pos 1198 CRC32 0x083e63de \tGTID 0-2-6 trans",
          "START TRANSACTION",
          "/*!*/;",
          "# at 1198",
          "# at 1253",
          "#261125 10:52:57 server id 2  end_log_pos 1253 CRC32 0xaf6b0a7f \tAnnotate_rows:",
          "#Q> insert into app.t values (99,'errant-row')",
          "# at 1299",
          "#261125 10:52:57 server id 2  end_log_pos 1339 CRC32 0xbf1ff474 \tWrite_rows: table id"
              + " 18 flags: STMT_END_F",
          "### INSERT INTO `app`.`t`",
          "###   @2='errant-row'",
          "# at 1339",
          "#261125 10:52:57 server id 2  end_log_pos 1370 CRC32 0x0e423101 \tXid = 22",
          "COMMIT/*!*/;",
          "DELIMITER ;",
          "# End of log file",
          "ROLLBACK /* added by mysqlbinlog */;");

  @Test
  void keepsOnlyTransactionsBeyondTheReferenceWithTheFormatAndTrailerForReplay() throws Exception {
    StringWriter out = new StringWriter();
    List<String> kept =
        ErrantBinlog.filter(new BufferedReader(new StringReader(BINLOG)), out, "0-1-5");
    assertThat(kept).containsExactly("0-2-6");
    assertThat(out.toString())
        .contains("Start: binlog v 4")
        .contains("#Q> insert into app.t values (99,'errant-row')")
        .contains("###   @2='errant-row'")
        .contains("COMMIT/*!*/;")
        .contains("ROLLBACK /* added by mysqlbinlog */;")
        .doesNotContain("grant select on app.*");
  }

  @Test
  void nothingBeyondTheReferenceKeepsNoTransaction() throws Exception {
    StringWriter out = new StringWriter();
    assertThat(ErrantBinlog.filter(new BufferedReader(new StringReader(BINLOG)), out, "0-2-6"))
        .isEmpty();
    assertThat(out.toString()).doesNotContain("errant-row");
  }

  @Test
  void aDomainThePrimaryNeverHadIsErrantWhole() throws Exception {
    StringWriter out = new StringWriter();
    assertThat(ErrantBinlog.filter(new BufferedReader(new StringReader(BINLOG)), out, "1-1-100"))
        .containsExactly("0-1-5", "0-2-6");
  }
}
