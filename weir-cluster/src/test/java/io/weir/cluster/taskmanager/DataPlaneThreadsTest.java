package io.weir.cluster.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.cluster.ClusterOptions;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The data plane's event loops from {@code taskmanager.network.netty.num-threads}. */
class DataPlaneThreadsTest {

  private static final String KEY = ClusterOptions.NETTY_THREADS.key();

  @Test
  void minusOneIsOneLoopPerSlotAndANumberIsTakenAsGiven() {
    assertThat(ClusterOptions.of(Map.of()).get(ClusterOptions.NETTY_THREADS)).isEqualTo(-1);
    assertThat(TaskManager.dataPlaneThreads(-1, 1)).isEqualTo(1);
    assertThat(TaskManager.dataPlaneThreads(-1, 4)).isEqualTo(4);
    assertThat(TaskManager.dataPlaneThreads(3, 1)).isEqualTo(3);
  }

  @Test
  void noThreadsOrANegativeCountOtherThanMinusOneIsRefusedNamingTheKey() {
    for (int bad : new int[] {0, -2}) {
      assertThatThrownBy(() -> TaskManager.dataPlaneThreads(bad, 2))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "The setting "
                  + KEY
                  + " = '"
                  + bad
                  + "' is not a number of threads: give one of at least 1, or -1 for one per"
                  + " slot");
    }
  }

  @Test
  void aTaskManagerWithoutDataPlaneThreadsRefusesToStartNamingTheKey() {
    ClusterOptions options = ClusterOptions.of(Map.of(KEY, "0"));
    assertThatThrownBy(() -> new TaskManager(options, "127.0.0.1", 1, reason -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(KEY);
  }
}
