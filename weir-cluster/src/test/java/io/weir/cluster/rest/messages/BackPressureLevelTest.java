package io.weir.cluster.rest.messages;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cluster.rest.messages.JobVertexInfo.BackPressureLevel;
import org.junit.jupiter.api.Test;

/** Flink's thresholds: ok up to 10 % of the time back-pressured, low up to 50 %, high above. */
class BackPressureLevelTest {

  @Test
  void theLevelsChangeAtFlinksThresholds() {
    assertThat(BackPressureLevel.of(0)).isEqualTo(BackPressureLevel.OK);
    assertThat(BackPressureLevel.of(0.10)).isEqualTo(BackPressureLevel.OK);
    assertThat(BackPressureLevel.of(0.1001)).isEqualTo(BackPressureLevel.LOW);
    assertThat(BackPressureLevel.of(0.5)).isEqualTo(BackPressureLevel.LOW);
    assertThat(BackPressureLevel.of(0.5001)).isEqualTo(BackPressureLevel.HIGH);
    assertThat(BackPressureLevel.of(1)).isEqualTo(BackPressureLevel.HIGH);
  }

  @Test
  void theyAreWrittenInLowerCaseAsFlinksAre() {
    assertThat(BackPressureLevel.HIGH.json()).isEqualTo("high");
    assertThat(BackPressureLevel.OK.json()).isEqualTo("ok");
  }
}
