package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.api.JobClient;
import io.weir.api.JobExecutionException;
import io.weir.api.JobStatus;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.task.TaskFailureException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A failing user function fails the job with an exception that names where it failed. */
@Timeout(30)
public class FailurePropagationTest {

  /** Thrown by the user functions below. */
  public static final class Boom extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Boom(String message) {
      super(message);
    }
  }

  /** Throws at element 17. */
  public static final class ThrowAt17 implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Long value) {
      if (value == 17) {
        throw new Boom("boom at element 17");
      }
      return value;
    }
  }

  /** Cannot open. */
  public static final class FailingOpen extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public void open(OpenContext openContext) throws Exception {
      throw new IOException("cannot open subtask " + getRuntimeContext().getIndexOfThisSubtask());
    }

    @Override
    public Long map(Long value) {
      return value;
    }
  }

  private static TaskFailureException taskFailure(Throwable thrown) {
    Throwable t = thrown;
    while (t != null) {
      if (t instanceof TaskFailureException tfe) {
        return tfe;
      }
      t = t.getCause();
    }
    throw new AssertionError("no TaskFailureException in the cause chain of " + thrown, thrown);
  }

  @Test
  void anExceptionInAMapFailsTheJobNamingOperatorAndSubtask() {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSequence(1, 100)
        .keyBy(x -> x % 5)
        .map(new ThrowAt17())
        .name("Fragile Map")
        .sinkTo(sink);

    Throwable thrown = catchThrowable(() -> env.execute("failing-map"));

    assertThat(thrown).isInstanceOf(JobExecutionException.class);
    assertThat(((JobExecutionException) thrown).getJobID()).isNotNull();
    TaskFailureException failure = taskFailure(thrown);
    int expectedSubtask = KeyGroupRangeAssignment.assignKeyToParallelOperator(17L % 5, 128, 2);
    assertThat(failure.getOperatorName()).isEqualTo("Fragile Map");
    assertThat(failure.getSubtaskIndex()).isEqualTo(expectedSubtask);
    assertThat(failure.getMessage())
        .contains("Fragile Map")
        .contains("subtask " + (expectedSubtask + 1) + " of 2")
        .contains("index " + expectedSubtask);
    assertThat(thrown).hasRootCauseInstanceOf(Boom.class).hasRootCauseMessage("boom at element 17");
    assertThat(thrown).hasMessageContaining("failing-map").hasMessageContaining("Fragile Map");
  }

  @Test
  void anUnnamedMapIsCalledMap() {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.fromSequence(1, 100).keyBy(x -> x % 5).map(new ThrowAt17()).sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("failing-unnamed-map"));

    assertThat(thrown).isInstanceOf(JobExecutionException.class);
    TaskFailureException failure = taskFailure(thrown);
    assertThat(failure.getOperatorName()).isEqualTo("Map");
    assertThat(failure.getMessage()).contains("'Map'");
    assertThat(thrown).hasRootCauseInstanceOf(Boom.class);
  }

  @Test
  void anExceptionInOpenFailsTheJobNamingOperatorAndSubtask() {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.fromSequence(1, 100)
        .keyBy(x -> x % 5)
        .map(new FailingOpen())
        .name("Unopenable")
        .sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("failing-open"));

    assertThat(thrown).isInstanceOf(JobExecutionException.class);
    TaskFailureException failure = taskFailure(thrown);
    int subtask = failure.getSubtaskIndex();
    assertThat(subtask).isBetween(0, 1);
    assertThat(failure.getOperatorName()).isEqualTo("Unopenable");
    assertThat(failure.getMessage())
        .contains("Unopenable")
        .contains("subtask " + (subtask + 1) + " of 2")
        .contains("index " + subtask);
    assertThat(thrown)
        .hasRootCauseInstanceOf(IOException.class)
        .hasRootCauseMessage("cannot open subtask " + subtask);
  }

  @Test
  void aFailureEndsAnUnboundedJobAsFailed() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.fromSource(UnboundedSource.endless(1), "Endless")
        .keyBy(x -> x % 3)
        .map(new ThrowAt17())
        .name("Fragile Map")
        .sinkTo(new CollectSink<>());
    JobClient client = env.executeAsync("failing-unbounded");

    Throwable thrown =
        catchThrowable(() -> client.getJobExecutionResult().get(20, TimeUnit.SECONDS));

    assertThat(thrown).hasCauseInstanceOf(JobExecutionException.class);
    assertThat(taskFailure(thrown).getOperatorName()).isEqualTo("Fragile Map");
    assertThat(thrown).hasRootCauseInstanceOf(Boom.class);
    client.cancel().get(5, TimeUnit.SECONDS);
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.FAILED);
  }

  /** Registers a processing-time timer on every element; the timer throws. */
  public static final class FailingTimer extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) {
      ctx.timerService().registerProcessingTimeTimer(ctx.timerService().currentProcessingTime());
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Long> out) {
      throw new Boom("timer of key " + ctx.getCurrentKey() + " failed");
    }
  }

  @Test
  void anExceptionInAProcessingTimeTimerNamesTheOperator() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.fromSource(UnboundedSource.emitting(1, 1), "One")
        .keyBy(x -> x)
        .process(new FailingTimer())
        .name("Timer Owner")
        .sinkTo(new CollectSink<>());
    JobClient client = env.executeAsync("failing-timer");

    Throwable thrown =
        catchThrowable(() -> client.getJobExecutionResult().get(10, TimeUnit.SECONDS));
    client.cancel().get(5, TimeUnit.SECONDS);

    assertThat(thrown).hasCauseInstanceOf(JobExecutionException.class);
    assertThat(thrown)
        .hasRootCauseInstanceOf(Boom.class)
        .hasRootCauseMessage("timer of key 0 failed");
    TaskFailureException failure = taskFailure(thrown);
    assertThat(failure.getSubtaskIndex()).isZero();
    assertThat(failure.getOperatorName()).isEqualTo("Timer Owner");
    assertThat(failure.getMessage()).startsWith("Operator 'Timer Owner'");
  }
}
