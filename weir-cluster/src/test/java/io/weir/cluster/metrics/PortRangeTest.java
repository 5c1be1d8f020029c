package io.weir.cluster.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PortRangeTest {

  @Test
  void readsAPortARangeAndAListOfBoth() {
    assertThat(PortRange.parse("k", "9249").ports()).containsExactly(9249);
    assertThat(PortRange.parse("k", "9250-9253").ports()).containsExactly(9250, 9251, 9252, 9253);
    assertThat(PortRange.parse("k", " 9250, 9252 - 9253 ").ports())
        .containsExactly(9250, 9252, 9253);
    assertThat(PortRange.parse("k", "0").ports()).containsExactly(0);
  }

  @Test
  void refusesWhatIsNoPortNamingTheKeyAndThePart() {
    assertThatThrownBy(() -> PortRange.parse("metrics.reporter.prom.port", "9250,abc"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("metrics.reporter.prom.port")
        .hasMessageContaining("'abc' is none");
    assertThatThrownBy(() -> PortRange.parse("k", "9260-9250"))
        .hasMessageContaining("'9260-9250' is none");
    assertThatThrownBy(() -> PortRange.parse("k", "70000")).hasMessageContaining("'70000'");
    assertThatThrownBy(() -> PortRange.parse("k", "")).isInstanceOf(IllegalArgumentException.class);
  }
}
