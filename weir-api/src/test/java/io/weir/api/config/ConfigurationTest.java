package io.weir.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigurationTest {

  @Test
  void defaultsAreFlinksButTheBufferTimeout() {
    Configuration c = new Configuration();
    assertThat(c.get(CoreOptions.MAX_PARALLELISM)).isEqualTo(128);
    // Flink's is 100 ms; Weir sends only buffers that have waited, so a short one costs nothing.
    assertThat(c.get(CoreOptions.BUFFER_TIMEOUT)).isEqualTo(Duration.ofMillis(5));
    assertThat(c.get(CoreOptions.DEFAULT_PARALLELISM)).isEqualTo(1);
  }

  @Test
  void durationsAndSizesParseInFlinksNotation() {
    assertThat(TimeUtils.parseDuration("100")).isEqualTo(Duration.ofMillis(100));
    assertThat(TimeUtils.parseDuration("1 s")).isEqualTo(Duration.ofSeconds(1));
    assertThat(TimeUtils.parseDuration("10min")).isEqualTo(Duration.ofMinutes(10));
    assertThat(MemorySize.parse("20 kb").bytes()).isEqualTo(20 * 1024);
    assertThat(MemorySize.parse("5mb").bytes()).isEqualTo(5L << 20);
  }

  @Test
  void typedValuesRoundTripThroughText() {
    Configuration c = new Configuration();
    c.set(CoreOptions.BUFFER_TIMEOUT, Duration.ofMinutes(2));
    assertThat(c.getString("execution.buffer-timeout.interval", null)).isEqualTo("2 min");
    assertThat(c.get(CoreOptions.BUFFER_TIMEOUT)).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void anInvalidValueNamesItsKey() {
    Configuration c = new Configuration().setString("execution.buffer-timeout.interval", "soon");
    assertThatThrownBy(() -> c.get(CoreOptions.BUFFER_TIMEOUT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("execution.buffer-timeout.interval")
        .hasMessageContaining("soon");
  }

  @Test
  void yamlFilesFlatOrNested(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(
        file,
        String.join(
            "\n",
            "# Flink-style settings",
            "parallelism.default: 3",
            "execution:",
            "  buffer-timeout: 5 ms   # short",
            "pipeline:",
            "  max-parallelism: '256'",
            ""));
    Configuration c = Configuration.fromYaml(file);
    assertThat(c.get(CoreOptions.DEFAULT_PARALLELISM)).isEqualTo(3);
    assertThat(c.get(CoreOptions.BUFFER_TIMEOUT)).isEqualTo(Duration.ofMillis(5));
    assertThat(c.get(CoreOptions.MAX_PARALLELISM)).isEqualTo(256);
  }

  @Test
  void aMalformedYamlLineIsReportedWithFileAndLine(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bad.yaml");
    Files.writeString(file, "parallelism.default: 2\nthis is not yaml\n");
    assertThatThrownBy(() -> Configuration.fromYaml(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad.yaml:2");
  }
}
