package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.typeutils.Types;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Local execution's default parallelism, as Flink's local environment's: the number of processors
 * unless the job sets {@code parallelism.default}.
 */
@Timeout(60)
class LocalParallelismTest {

  /** Each element becomes the parallelism of the subtask that mapped it. */
  static final class Parallelism extends RichMapFunction<Integer, Integer> {
    @Override
    public Integer map(Integer value) {
      return getRuntimeContext().getNumberOfParallelSubtasks();
    }
  }

  private static List<Integer> parallelismOfAMap(StreamEnvironment env) throws Exception {
    return env.fromData(1).map(new Parallelism()).returns(Types.INT).executeAndCollect(1);
  }

  @Test
  void aJobThatSetsNoParallelismRunsAtTheNumberOfProcessors() throws Exception {
    assertThat(System.getProperty("parallelism.default")).as("set for this JVM").isNull();

    assertThat(parallelismOfAMap(StreamEnvironment.create()))
        .containsExactly(Runtime.getRuntime().availableProcessors());
  }

  @Test
  void theParallelismTheJobSetsWins() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    assertThat(parallelismOfAMap(env)).containsExactly(1);

    Configuration conf = new Configuration();
    conf.set(CoreOptions.DEFAULT_PARALLELISM, 3);
    assertThat(parallelismOfAMap(StreamEnvironment.create(conf))).containsExactly(3);
  }
}
