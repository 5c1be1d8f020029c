package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
import io.weir.api.source.datagen.DataGeneratorSource;
import io.weir.api.source.datagen.RateLimiterStrategy;
import io.weir.api.typeutils.Types;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A job reads every generated record exactly once, with and without a rate limit. */
@Timeout(60)
class DataGeneratorSourceJobTest {

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void everyIndexBecomesOneRecordOfTheGeneratorsType(boolean rateLimited) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<String> sink = new CollectSink<>();
    DataGeneratorSource<String> source =
        new DataGeneratorSource<>(
            i -> "record-" + i,
            2_000,
            rateLimited ? RateLimiterStrategy.perSecond(20_000) : RateLimiterStrategy.noOp(),
            Types.STRING);

    env.fromSource(source, "Generator") // the type is the source's own
        .rebalance()
        .map(s -> s + "!")
        .sinkTo(sink);
    env.execute("datagen");

    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      expected.add("record-" + i + "!");
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }
}
