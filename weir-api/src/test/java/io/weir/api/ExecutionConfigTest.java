package io.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.util.ParameterTool;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code env.getConfig()}: Flink's setters, written as the environment's keys. */
class ExecutionConfigTest {

  @Test
  void settersWriteTheEnvironmentsKeys() {
    StreamEnvironment env = StreamEnvironment.create(new Configuration());
    env.getConfig()
        .setAutoWatermarkInterval(50)
        .enableObjectReuse()
        .setParallelism(3)
        .setMaxParallelism(256);

    Configuration conf = env.getConfiguration();
    assertThat(conf.get(CoreOptions.AUTO_WATERMARK_INTERVAL)).isEqualTo(Duration.ofMillis(50));
    assertThat(conf.get(CoreOptions.OBJECT_REUSE)).isTrue();
    assertThat(env.getParallelism()).isEqualTo(3);
    assertThat(env.getMaxParallelism()).isEqualTo(256);
    assertThat(env.getConfig().getAutoWatermarkInterval()).isEqualTo(50);
    assertThat(env.getConfig().isObjectReuseEnabled()).isTrue();
    assertThat(env.getConfig().disableObjectReuse().isObjectReuseEnabled()).isFalse();
  }

  @Test
  void badValuesAreRefusedNamingThem() {
    ExecutionConfig config = StreamEnvironment.create(new Configuration()).getConfig();
    assertThatThrownBy(() -> config.setParallelism(0)).hasMessageContaining("parallelism");
    assertThatThrownBy(() -> config.setAutoWatermarkInterval(-1))
        .hasMessageContaining("auto watermark interval");
  }

  @Test
  void jobParametersSurviveTheirTextEvenWithSeparatorsAndQuotes() {
    Map<String, String> params = new LinkedHashMap<>();
    params.put("input", "s3://bucket/a,b");
    params.put("a:b", "it's \"quoted\"");
    params.put("empty", "");
    StreamEnvironment env = StreamEnvironment.create(new Configuration());
    env.getConfig().setGlobalJobParameters(ParameterTool.fromMap(params));

    String text = env.getConfiguration().toMap().get("pipeline.global-job-parameters");
    Configuration copy = new Configuration().setString("pipeline.global-job-parameters", text);
    assertThat(copy.get(CoreOptions.GLOBAL_JOB_PARAMETERS)).isEqualTo(params);
    assertThat(env.getConfig().getGlobalJobParameters().toMap()).isEqualTo(params);
  }

  @Test
  void jobParametersAreReadAsFlinkWritesThem() {
    assertThat(parse("a:1,b:2")).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));
    assertThat(parse("{a: 1, b: 'x,y'}"))
        .containsExactly(Map.entry("a", "1"), Map.entry("b", "x,y"));
    assertThat(parse("")).isEmpty();
    assertThatThrownBy(() -> parse("a:1,b"))
        .hasMessageContaining("pipeline.global-job-parameters")
        .hasMessageContaining("'b' is not one");
    assertThatThrownBy(() -> parse("a:'1")).hasMessageContaining("not closed");
  }

  private static Map<String, String> parse(String text) {
    return new Configuration()
        .setString("pipeline.global-job-parameters", text)
        .get(CoreOptions.GLOBAL_JOB_PARAMETERS);
  }
}
