package io.weir.api.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParameterToolTest {

  @Test
  void readsKeysWithOneOrTwoDashesValuesFlagsAndNegativeNumbers() {
    ParameterTool params =
        ParameterTool.fromArgs(
            new String[] {"--input", "in.txt", "-parallelism", "4", "--verbose", "--offset", "-5"});

    assertThat(params.getNumberOfParameters()).isEqualTo(4);
    assertThat(params.get("input")).isEqualTo("in.txt");
    assertThat(params.getInt("parallelism")).isEqualTo(4);
    assertThat(params.has("verbose")).isTrue();
    assertThat(params.get("verbose")).isNull();
    assertThat(params.getBoolean("verbose")).isTrue();
    assertThat(params.getLong("offset")).isEqualTo(-5L);
    assertThat(params.has("output")).isFalse();
    assertThat(params.get("output")).isNull();
  }

  @Test
  void defaultsApplyOnlyToKeysWithoutAValue() {
    ParameterTool params = ParameterTool.fromArgs(new String[] {"--rate", "10", "--flag"});

    assertThat(params.get("output", "stdout")).isEqualTo("stdout");
    assertThat(params.get("flag", "x")).isEqualTo("x");
    assertThat(params.getInt("rate", 1)).isEqualTo(10);
    assertThat(params.getInt("missing", 7)).isEqualTo(7);
    assertThat(params.getLong("missing", 8L)).isEqualTo(8L);
    assertThat(params.getDouble("rate", 0.5)).isEqualTo(10.0);
    assertThat(params.getBoolean("missing", false)).isFalse();
  }

  @Test
  void theLastOfARepeatedKeyCounts() {
    ParameterTool params = ParameterTool.fromArgs(new String[] {"--n", "1", "--n", "2"});

    assertThat(params.getInt("n")).isEqualTo(2);
    assertThat(params.toMap()).isEqualTo(Map.of("n", "2"));
  }

  @Test
  void aMissingRequiredKeyIsNamed() {
    ParameterTool params = ParameterTool.fromArgs(new String[] {"--output"});

    assertThatThrownBy(() -> params.getRequired("input"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("No data for required key 'input': give --input VALUE");
    assertThatThrownBy(() -> params.getLong("events"))
        .hasMessageContaining("required key 'events'");
    assertThatThrownBy(() -> params.getRequired("output"))
        .hasMessage("The parameter --output needs a value: give --output VALUE");
  }

  @Test
  void aBadNumberNamesItsKeyAndValue() {
    ParameterTool params = ParameterTool.fromArgs(new String[] {"--events", "ten", "--on", "yes"});

    assertThatThrownBy(() -> params.getLong("events", 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The value 'ten' of --events is not a long: give --events N");
    assertThatThrownBy(() -> params.getInt("events"))
        .hasMessageContaining("'ten' of --events is not an int");
    assertThatThrownBy(() -> params.getBoolean("on"))
        .hasMessage("The value 'yes' of --on is not a boolean: give true or false");
  }

  @Test
  void anArgumentThatIsNoKeyIsRefusedNamingIt() {
    assertThatThrownBy(() -> ParameterTool.fromArgs(new String[] {"input.txt", "--n", "1"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("on 'input.txt'")
        .hasMessageContaining("must start with -- or -");
    assertThatThrownBy(() -> ParameterTool.fromArgs(new String[] {"--n", "1", "2"}))
        .hasMessageContaining("on '2'");
    assertThatThrownBy(() -> ParameterTool.fromArgs(new String[] {"--"}))
        .hasMessageContaining("must have a name");
  }

  @Test
  void survivesJavaSerializationAsAFunctionsField() throws Exception {
    ParameterTool params = ParameterTool.fromArgs(new String[] {"--a", "1", "--b"});
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(params);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      ParameterTool copy = (ParameterTool) in.readObject();
      assertThat(copy).isEqualTo(params);
      assertThat(copy.has("b")).isTrue();
      assertThat(copy.getInt("a")).isEqualTo(1);
    }
  }

  @Test
  void aPropertiesFileMergedWithTheCommandLineWhichOverridesIt(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("job.properties");
    Files.writeString(file, "input=/data/in\nparallelism=2\nratio=0.5\n");

    ParameterTool params =
        ParameterTool.fromPropertiesFile(file.toString())
            .mergeWith(ParameterTool.fromArgs(new String[] {"--parallelism", "4"}));

    assertThat(params.get("input")).isEqualTo("/data/in");
    assertThat(params.getInt("parallelism")).isEqualTo(4);
    assertThat(params.getFloat("ratio")).isEqualTo(0.5f);
    assertThat(params.getFloat("missing", 1.5f)).isEqualTo(1.5f);
    assertThat(params.getProperties()).containsEntry("input", "/data/in");
    assertThat(params.getNumberOfParameters()).isEqualTo(3);
  }

  @Test
  void aMissingPropertiesFileIsNamed(@TempDir Path dir) {
    Path missing = dir.resolve("nope.properties");
    assertThatThrownBy(() -> ParameterTool.fromPropertiesFile(missing.toString()))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist");
  }

  @Test
  void systemPropertiesAreParameters() {
    System.setProperty("weir.parameter-tool.test", "yes");
    try {
      assertThat(ParameterTool.fromSystemProperties().get("weir.parameter-tool.test"))
          .isEqualTo("yes");
    } finally {
      System.clearProperty("weir.parameter-tool.test");
    }
  }
}
