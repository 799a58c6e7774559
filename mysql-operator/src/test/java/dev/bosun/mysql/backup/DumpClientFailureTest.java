package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A dump or load client's failure: its name, exit code and last error line, never the rows. */
class DumpClientFailureTest {

  @Test
  void theLastErrorLineOfTheDumpClientIsKept() {
    String stderr =
        "mariadb-dump: [Warning] Using a password on the command line interface can be insecure.\n"
            + "mariadb-dump: Got error: 2002: \"Can't connect to server on 'db-1' (115)\" when"
            + " trying to connect\n\n";
    assertThat(DumpClientFailure.describe("mariadb-dump", 2, stderr))
        .isEqualTo(
            "mariadb-dump exited with 2: mariadb-dump: Got error: 2002: \"Can't connect to server"
                + " on 'db-1' (115)\" when trying to connect");
  }

  @Test
  void aLongLineIsBoundedAndAPathIsCutToTheClientsName() {
    String said = DumpClientFailure.describe("/usr/bin/mysqldump", 3, "x".repeat(5000));
    assertThat(said).startsWith("mysqldump exited with 3: xxx").endsWith("...");
    assertThat(said.length())
        .isLessThanOrEqualTo("mysqldump exited with 3: ".length() + DumpClientFailure.MAX_LINE);
  }

  @Test
  void aServerErrorWhileLoadingLeavesTheQuotedRowsOut() {
    String said =
        DumpClientFailure.describe(
            "mariadb",
            1,
            "ERROR 1062 (23000) at line 42: Duplicate entry 'alice@example.com' for key 'email'");
    assertThat(said)
        .isEqualTo(
            "mariadb exited with 1: the server refused the dump's statements with ERROR 1062"
                + " (23000) at line 42")
        .doesNotContain("alice");
  }

  @Test
  void noErrorOutputIsSaidSo() {
    assertThat(DumpClientFailure.describe("mariadb-dump", 137, " \n"))
        .isEqualTo("mariadb-dump exited with 137 without an error message");
    assertThat(DumpClientFailure.describe("mariadb-dump", 1, null))
        .isEqualTo("mariadb-dump exited with 1 without an error message");
  }
}
