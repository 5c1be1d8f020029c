package io.weir.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.JobClient;
import io.weir.api.JobStatus;
import io.weir.api.SingleOutputStreamOperator;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.functions.SinkFunction;
import io.weir.api.util.ParameterTool;
import io.weir.examples.PageViewCount.PageCount;
import io.weir.examples.WindowedPageViews.PageView;
import io.weir.examples.WindowedPageViews.WindowCount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The unbounded, checkpointed example through stop-with-savepoint and resume, and the event-time
 * example's exact output, its too-late views included.
 */
class ExamplesStreamingTest {

  static final Queue<Object> OUT = new ConcurrentLinkedQueue<>();
  static final Queue<Object> LATE = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void clear() {
    OUT.clear();
    LATE.clear();
  }

  /** Into {@link #OUT}, named in the lambda: a captured queue would be serialized, a copy. */
  private static <T> SinkFunction<T> intoOut() {
    return (value, ctx) -> OUT.add(value);
  }

  private static <T> SinkFunction<T> intoLate() {
    return (value, ctx) -> LATE.add(value);
  }

  /** The last count of each page in {@code out}, checking that each page counts 1, 2, 3... */
  private static Map<String, Long> contiguousCounts(Iterable<Object> out, Map<String, Long> start) {
    Map<String, Long> last = new HashMap<>(start);
    for (Object o : out) {
      PageCount c = (PageCount) o;
      long expected = last.getOrDefault(c.page(), 0L) + 1;
      assertThat(c.views())
          .as("the count after %s for %s", expected - 1, c.page())
          .isEqualTo(expected);
      last.put(c.page(), c.views());
    }
    return last;
  }

  @Test
  void pageViewCountStopsWithASavepointAfterCheckpointsAndResumesEachCountWhereItStopped(
      @TempDir Path dir) throws Exception {
    ParameterTool params =
        ParameterTool.fromArgs(
            new String[] {
              "--rate", "2000",
              "--checkpoint-interval", "100",
              "--checkpoint-dir", dir.resolve("checkpoints").toUri().toString()
            });
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    PageViewCount.configureCheckpoints(env, params);
    PageViewCount.counts(env, params).addSink(intoOut()).uid("sink");
    JobClient job = env.executeAsync("page-view-count");

    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                job.getCheckpointStatistics().stream()
                        .filter(s -> s.status() == CheckpointStatistics.Status.COMPLETED)
                        .count()
                    >= 3);
    String savepoint =
        job.stopWithSavepoint(dir.resolve("savepoints").toUri().toString(), false)
            .get(60, TimeUnit.SECONDS);

    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
    assertThat(Path.of(java.net.URI.create(savepoint)).resolve("_metadata")).exists();
    Map<String, Long> stopped = contiguousCounts(new ArrayList<>(OUT), Map.of());
    assertThat(stopped.keySet()).containsExactlyInAnyOrder(PageViewCount.PAGES);

    // As 'weir run -s SAVEPOINT' does: the same job, started from the savepoint.
    OUT.clear();
    StreamEnvironment resumed = StreamEnvironment.create();
    resumed.setParallelism(2);
    resumed.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    PageViewCount.configureCheckpoints(resumed, params);
    PageViewCount.counts(resumed, params).addSink(intoOut()).uid("sink");
    JobClient again = resumed.executeAsync("page-view-count");
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  OUT.stream().map(o -> ((PageCount) o).page()).distinct().count()
                      == PageViewCount.PAGES.length);
    } finally {
      again.cancel().get(60, TimeUnit.SECONDS);
    }
    // Every page goes on from its count at the savepoint: nothing lost, nothing counted twice.
    contiguousCounts(new ArrayList<>(OUT), stopped);
  }

  @Test
  void windowedPageViewsCountsEachWindowFiresAgainForLateViewsAndSetsAsideTooLateOnes()
      throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    List<String> lines = WindowedPageViews.lines(ParameterTool.fromArgs(new String[0]));
    SingleOutputStreamOperator<WindowCount> counts =
        WindowedPageViews.counts(WindowedPageViews.parse(env.fromData(lines)));
    counts.addSink(intoOut());
    counts.getSideOutput(WindowedPageViews.TOO_LATE).addSink(intoLate());
    env.execute("windowed-page-views");

    assertThat(OUT)
        .map(Object::toString)
        .containsExactlyInAnyOrder(
            // [0s,10s) fires when view 16 moves the watermark past 10s: 1, 8 and 6 (late, but
            // within the 5 s bound); 9 comes after it fired, within the allowed lateness: again.
            "(/home,[0s,10s),3)",
            "(/cart,[0s,10s),1)",
            "(/home,[0s,10s),4)",
            "(/home,[10s,20s),1)",
            "(/cart,[10s,20s),1)",
            "(/cart,[10s,20s),2)",
            "(/home,[20s,30s),1)",
            "(/search,[20s,30s),1)",
            // The end of the input: the final watermark fires the last window.
            "(/home,[30s,40s),1)");
    // 4 s comes after view 21 (watermark 16 s), 15 s after view 33 (watermark 28 s): both past
    // their window's end plus the allowed lateness.
    assertThat(LATE)
        .containsExactlyInAnyOrder(new PageView(4_000, "/cart"), new PageView(15_000, "/home"));
  }

  @Test
  void windowedPageViewsReadsItsInputFileAndNamesALineItCannotRead(@TempDir Path dir)
      throws Exception {
    Path input = Files.writeString(dir.resolve("views.csv"), "2,/a\n\n7, /b\n");
    assertThat(
            WindowedPageViews.lines(
                ParameterTool.fromArgs(new String[] {"--input", input.toString()})))
        .containsExactly("2,/a", "7, /b");
    assertThat(PageView.parse("7, /b")).isEqualTo(new PageView(7_000, "/b"));
    assertThatThrownBy(() -> PageView.parse("2 /a"))
        .hasMessageContaining("Cannot read the page view '2 /a'");
  }
}
