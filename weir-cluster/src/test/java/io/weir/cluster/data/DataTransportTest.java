package io.weir.cluster.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.epoll.Epoll;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.taskmanager.TaskManager;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Choosing the data plane's transport from {@code taskmanager.network.netty.transport}. */
class DataTransportTest {

  private static final String KEY = ClusterOptions.NETTY_TRANSPORT.key();

  @Test
  void autoIsEpollWhereTheNativeTransportLoadsAndNioElsewhere() {
    DataTransport expected = Epoll.isAvailable() ? DataTransport.EPOLL : DataTransport.NIO;
    assertThat(DataTransport.of(KEY, "auto")).isEqualTo(expected);
    assertThat(DataTransport.of(KEY, null)).isEqualTo(expected);
    assertThat(
            DataTransport.of(KEY, ClusterOptions.of(Map.of()).get(ClusterOptions.NETTY_TRANSPORT)))
        .isEqualTo(expected);
  }

  @Test
  void namedTransportsAreTakenAsGivenInAnyCase() {
    assertThat(DataTransport.of(KEY, " NIO ")).isEqualTo(DataTransport.NIO);
    if (Epoll.isAvailable()) {
      assertThat(DataTransport.of(KEY, "Epoll")).isEqualTo(DataTransport.EPOLL);
    } else {
      assertThatThrownBy(() -> DataTransport.of(KEY, "epoll"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(KEY)
          .hasMessageContaining("use auto or nio");
    }
  }

  @Test
  void anUnknownTransportIsRefusedNamingTheKeyAndTheChoices() {
    assertThatThrownBy(() -> DataTransport.of(KEY, "rdma"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The setting " + KEY + " = 'rdma' is not one of auto, nio, epoll");
  }

  @Test
  void aTaskManagerWithAnUnknownTransportRefusesToStartNamingTheKey() {
    ClusterOptions options = ClusterOptions.of(Map.of(KEY, "rdma"));
    assertThatThrownBy(() -> new TaskManager(options, "127.0.0.1", 1, reason -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(KEY)
        .hasMessageContaining("rdma");
  }
}
