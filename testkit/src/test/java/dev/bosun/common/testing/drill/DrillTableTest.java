package dev.bosun.common.testing.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DrillTableTest {

  private static DrillTable mysql() {
    return new DrillTable("mysql", List.of("drill", "acknowledged", "lost", "seconds to Ready"))
        .row("operator cut off from primary", 812, 0, "14.2")
        .row("primary isolated", 5, 0, "n/a");
  }

  @Test
  void textAlignsColumnsAndRightAlignsNumericOnes() {
    assertThat(mysql().text())
        .isEqualTo(
            """
            mysql
            drill                          acknowledged  lost  seconds to Ready
            -----------------------------  ------------  ----  ----------------
            operator cut off from primary           812     0  14.2
            primary isolated                          5     0  n/a
            """);
  }

  @Test
  void markdownHasACaptionAndRightAlignsNumericColumns() {
    assertThat(mysql().markdown())
        .isEqualTo(
            """
            Drill results: mysql

            | drill | acknowledged | lost | seconds to Ready |
            | --- | --: | --: | --- |
            | operator cut off from primary | 812 | 0 | 14.2 |
            | primary isolated | 5 | 0 | n/a |
            """);
  }

  @Test
  void cellsCannotBreakTheMarkdownTable() {
    DrillTable t = new DrillTable("etcd", List.of("drill", "note")).row("a|b", "two\nlines");
    assertThat(t.markdown()).contains("| a\\|b | two lines |");
  }

  @Test
  void aRowNeedsOneCellPerColumn() {
    DrillTable t = new DrillTable("etcd", List.of("drill", "lost"));
    assertThatThrownBy(() -> t.row("only one")).isInstanceOf(IllegalArgumentException.class);
    assertThat(t.rows()).isEmpty();
  }

  @Test
  void anEmptyTableHasHeaderAndRuleOnly() {
    assertThat(new DrillTable("etcd", List.of("drill", "lost")).text())
        .isEqualTo("etcd\ndrill  lost\n-----  ----\n");
  }

  @Test
  void writeMarkdownCreatesTheDirectory(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("target/drill-results/mysql.md");
    mysql().writeMarkdown(file);
    assertThat(Files.readString(file)).isEqualTo(mysql().markdown());
  }
}
