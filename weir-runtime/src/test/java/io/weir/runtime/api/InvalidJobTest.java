package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.api.DataStream;
import io.weir.api.JobExecutionException;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.Collector;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.ProcessFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.InvalidTypesException;
import io.weir.api.typeutils.Types;
import io.weir.runtime.task.TaskFailureException;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input is reported with a message that names what is at fault. */
@Timeout(30)
public class InvalidJobTest {

  /** Identity map that records that one of its subtasks was opened, i.e. a task started. */
  public static final class OpenTracker extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private static final Set<String> OPENED = ConcurrentHashMap.newKeySet();
    private final String id = UUID.randomUUID().toString();

    @Override
    public void open(OpenContext openContext) {
      OPENED.add(id);
    }

    @Override
    public Long map(Long value) {
      return value;
    }

    boolean wasOpened() {
      return OPENED.contains(id);
    }
  }

  /** Not serializable. */
  static final class Unshippable {
    long offset = 1;
  }

  /** Reads keyed state although its stream is not keyed. */
  public static final class KeyedStateWithoutKeyBy extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> state;

    @Override
    public void open(OpenContext openContext) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("s", Types.LONG));
    }

    @Override
    public Long map(Long value) throws Exception {
      state.update(value);
      return value;
    }
  }

  /** Registers a timer although its stream is not keyed. */
  public static final class TimerWithoutKeyBy extends ProcessFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) {
      ctx.timerService().registerProcessingTimeTimer(ctx.timerService().currentProcessingTime());
      out.collect(value);
    }
  }

  private static StreamEnvironment env(int parallelism) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    return env;
  }

  // ---- parallelism -------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(ints = {0, -1})
  void environmentParallelismMustBePositive(int parallelism) {
    StreamEnvironment env = StreamEnvironment.create();
    assertThatThrownBy(() -> env.setParallelism(parallelism))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parallelism")
        .hasMessageContaining(String.valueOf(parallelism));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1})
  void operatorParallelismMustBePositive(int parallelism) {
    StreamEnvironment env = env(1);
    var mapped = env.fromSequence(1, 10).map(x -> x).name("Doubler");
    assertThatThrownBy(() -> mapped.setParallelism(parallelism))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Doubler'")
        .hasMessageContaining("parallelism")
        .hasMessageContaining(String.valueOf(parallelism));

    var sink = mapped.sinkTo(new CollectSink<>()).name("Out");
    assertThatThrownBy(() -> sink.setParallelism(parallelism))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Out'")
        .hasMessageContaining(String.valueOf(parallelism));

    var source = env.fromSequence(1, 10).name("Numbers");
    assertThatThrownBy(() -> source.setParallelism(parallelism))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Numbers'");
  }

  @Test
  void parallelismAboveMaxParallelismFailsAtExecuteBeforeAnyTaskStarts() {
    StreamEnvironment env = env(2);
    env.setMaxParallelism(4);
    OpenTracker tracker = new OpenTracker();
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSequence(1, 10)
        .map(tracker)
        .keyBy(x -> x % 3)
        .map(x -> x)
        .name("Too Wide")
        .setParallelism(5)
        .sinkTo(sink);

    Throwable thrown = catchThrowable(() -> env.execute("too-wide"));

    assertThat(thrown)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Too Wide'")
        .hasMessageContaining("max parallelism")
        .hasMessageContaining("5")
        .hasMessageContaining("4");
    assertThat(tracker.wasOpened()).as("a task started").isFalse();
    assertThat(sink.results()).isEmpty();
  }

  @Test
  void fewerMaximumThanMinimumCreditsPerChannelFailAtExecuteBeforeAnyTaskStarts() {
    StreamEnvironment env = env(2);
    env.getConfiguration().set(CoreOptions.BUFFERS_PER_CHANNEL, 8);
    env.getConfiguration().set(CoreOptions.MAX_BUFFERS_PER_CHANNEL, 6);
    OpenTracker tracker = new OpenTracker();
    env.fromSequence(1, 10).map(tracker).keyBy(x -> x % 3).sinkTo(new CollectSink<>());

    assertThatThrownBy(() -> env.execute("shallow"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("taskmanager.network.memory.max-buffers-per-channel")
        .hasMessageContaining("taskmanager.network.memory.buffers-per-channel (8)")
        .hasMessageContaining("but was 6");
    assertThat(tracker.wasOpened()).as("a task started").isFalse();
  }

  @Test
  void forwardBetweenDifferentParallelismsIsRejected() {
    StreamEnvironment env = env(2);
    OpenTracker tracker = new OpenTracker();
    env.fromSequence(1, 10)
        .map(tracker)
        .name("Two Wide")
        .forward()
        .map(x -> x)
        .name("Three Wide")
        .setParallelism(3)
        .sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("bad-forward"));

    assertThat(thrown)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("orward")
        .hasMessageContaining("'Two Wide'")
        .hasMessageContaining("'Three Wide'");
    assertThat(tracker.wasOpened()).isFalse();
  }

  // ---- keys --------------------------------------------------------------------------------

  @Test
  void aKeySelectorReturningNullFailsTheJobNamingTheConsumer() {
    StreamEnvironment env = env(2);
    env.fromSequence(1, 20)
        .keyBy((Long x) -> x == 7 ? null : x % 3, Types.LONG)
        .map(x -> x)
        .name("Keyed Consumer")
        .sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("null-key"));

    assertThat(thrown).isInstanceOf(JobExecutionException.class);
    assertThat(thrown).hasStackTraceContaining("Keyed Consumer");
    Throwable t = thrown;
    TaskFailureException failure = null;
    while (t != null) {
      if (t instanceof TaskFailureException tfe) {
        failure = tfe;
      }
      t = t.getCause();
    }
    assertThat(failure).isNotNull();
    assertThat(failure.getMessage())
        .containsIgnoringCase("key selector returned null")
        .contains("Keyed Consumer");
  }

  // ---- types -------------------------------------------------------------------------------

  @Test
  void aFlatMapLambdaWithoutReturnsFailsAtExecuteBeforeAnyTaskStarts() {
    StreamEnvironment env = env(1);
    OpenTracker tracker = new OpenTracker();
    DataStream<String> words =
        env.fromSequence(1, 3)
            .map(tracker)
            .flatMap(
                (Long n, Collector<String> out) -> {
                  out.collect("n" + n);
                });
    words.sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("no-returns"));

    assertThat(thrown).isInstanceOf(InvalidTypesException.class).hasMessageContaining("returns(");
    assertThat(thrown).hasMessageContaining("Flat Map");
    assertThat(tracker.wasOpened()).isFalse();
  }

  @Test
  void theSameFlatMapWithReturnsRuns() throws Exception {
    StreamEnvironment env = env(1);
    CollectSink<String> sink = new CollectSink<>();
    env.fromSequence(1, 3)
        .flatMap((Long n, Collector<String> out) -> out.collect("n" + n))
        .returns(Types.STRING)
        .sinkTo(sink);
    env.execute("with-returns");
    assertThat(sink.results()).containsExactlyInAnyOrder("n1", "n2", "n3");
  }

  // ---- serializability ---------------------------------------------------------------------

  @Test
  void aFunctionCapturingANonSerializableObjectFailsBeforeAnyTaskStarts() {
    StreamEnvironment env = env(2);
    OpenTracker tracker = new OpenTracker();
    Unshippable helper = new Unshippable();
    env.fromSequence(1, 10)
        .map(tracker)
        .map(x -> x + helper.offset)
        .name("Captures Helper")
        .sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("not-serializable"));

    assertThat(thrown)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Captures Helper'")
        .hasMessageContaining("not serializable")
        .hasMessageContaining(Unshippable.class.getName());
    assertThat(tracker.wasOpened()).isFalse();
  }

  // ---- keyed state and timers without keyBy ------------------------------------------------

  @Test
  void keyedStateOnANonKeyedStreamFailsMentioningKeyBy() {
    StreamEnvironment env = env(2);
    env.fromSequence(1, 10)
        .map(new KeyedStateWithoutKeyBy())
        .name("Stateful Map")
        .sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("keyed-state-no-keyBy"));

    assertThat(thrown).isInstanceOf(JobExecutionException.class);
    assertThat(thrown)
        .rootCause()
        .hasMessageContaining("keyBy")
        .hasMessageContaining("Stateful Map");
  }

  @Test
  void timersOnANonKeyedStreamFailMentioningKeyBy() {
    StreamEnvironment env = env(1);
    env.fromSequence(1, 10)
        .process(new TimerWithoutKeyBy())
        .name("Timer Process")
        .sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("timers-no-keyBy"));

    assertThat(thrown).isInstanceOf(JobExecutionException.class);
    assertThat(thrown)
        .rootCause()
        .hasMessageContaining("keyBy")
        .hasMessageContaining("Timer Process");
  }

  @Test
  void aJobWithoutSinksIsRejected() {
    StreamEnvironment env = env(1);
    env.fromSequence(1, 10).map(x -> x);
    assertThatThrownBy(() -> env.execute("no-sinks"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("No sinks")
        .hasMessageContaining("no-sinks");
  }
}
