package io.weir.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/migrating-from-flink.md shows the map weir migrate applies, as the map says it: the tables
 * between its markers are generated from flink-to-weir.properties ({@code -Dweir.docs.write=true}
 * rewrites them).
 */
class MigrationGuideTest {

  static final Path GUIDE =
      Path.of("").toAbsolutePath().getParent().resolve("docs/migrating-from-flink.md");
  static final String BEGIN = "<!-- flink-to-weir:begin -->\n";
  static final String END = "<!-- flink-to-weir:end -->";

  @Test
  void theGuideShowsTheMapTheToolApplies() throws Exception {
    String guide = Files.readString(GUIDE, StandardCharsets.UTF_8);
    int begin = guide.indexOf(BEGIN);
    int end = guide.indexOf(END);
    assertThat(begin).as("markers in " + GUIDE).isNotNegative();
    assertThat(end).isGreaterThan(begin);
    String expected =
        guide.substring(0, begin + BEGIN.length())
            + FlinkToWeirMap.load().markdown()
            + guide.substring(end);
    if (Boolean.getBoolean("weir.docs.write")) {
      Files.writeString(GUIDE, expected, StandardCharsets.UTF_8);
    }
    assertThat(guide)
        .as("run this test with -Dweir.docs.write=true to rewrite the tables")
        .isEqualTo(expected);
  }
}
