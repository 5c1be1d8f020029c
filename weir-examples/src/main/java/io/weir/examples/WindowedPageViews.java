package io.weir.examples;

import io.weir.api.DataStream;
import io.weir.api.OutputTag;
import io.weir.api.SingleOutputStreamOperator;
import io.weir.api.StreamEnvironment;
import io.weir.api.eventtime.Watermark;
import io.weir.api.eventtime.WatermarkGenerator;
import io.weir.api.eventtime.WatermarkOutput;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.util.ParameterTool;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import io.weir.api.windowing.windows.TimeWindow;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Event time and windows: page views counted per page in tumbling 10-second windows of the time the
 * views happened, not the time they reach the job.
 *
 * <p>The views arrive out of order. A watermark says "no view older than this is still to come";
 * here it trails the newest view seen by 5 seconds (bounded out-of-orderness), so a view up to 5
 * seconds late still lands in its window before the window fires. A view later than that, but
 * within the allowed lateness of another 5 seconds, fires its window again with the corrected
 * count. A view later still is not counted: it goes to a side output, where the job prints it.
 *
 * <p>Parameters:
 *
 * <ul>
 *   <li>{@code --input FILE}: lines of {@code SECONDS,PAGE}, the time of a view in seconds and its
 *       page (default: built-in views, {@link #VIEWS}). The file is read by {@code main}, which
 *       every process of the job runs, so on a cluster it must be readable on every machine.
 * </ul>
 *
 * <p>Run it with {@code ./weir run weir-examples/target/weir-examples-*.jar WindowedPageViews}.
 */
public final class WindowedPageViews {

  private WindowedPageViews() {}

  /** Views as {@code SECONDS,PAGE}, in the order they arrive: some late, two too late. */
  public static final List<String> VIEWS =
      List.of(
          "1,/home",
          "3,/cart",
          "8,/home",
          "12,/home",
          "6,/home",
          "16,/cart",
          "9,/home",
          "21,/home",
          "4,/cart",
          "26,/search",
          "18,/cart",
          "33,/home",
          "15,/home");

  static final Duration OUT_OF_ORDERNESS = Duration.ofSeconds(5);
  static final Duration WINDOW_SIZE = Duration.ofSeconds(10);
  static final Duration ALLOWED_LATENESS = Duration.ofSeconds(5);

  /** A view of {@code page} at {@code timestamp}, milliseconds since the epoch. */
  public record PageView(long timestamp, String page) {
    public static PageView parse(String line) {
      String[] fields = line.split(",", 2);
      if (fields.length != 2) {
        throw new IllegalArgumentException(
            "Cannot read the page view '" + line + "': give SECONDS,PAGE, e.g. 12,/home");
      }
      return new PageView(Long.parseLong(fields[0].strip()) * 1000, fields[1].strip());
    }
  }

  /** The views of {@code page} in the window {@code [start, end)} (milliseconds). */
  public record WindowCount(String page, long start, long end, long views) {
    @Override
    public String toString() {
      return "(" + page + ",[" + start / 1000 + "s," + end / 1000 + "s)," + views + ")";
    }
  }

  /** Where views too late for their window go, instead of being dropped silently. */
  public static final OutputTag<PageView> TOO_LATE =
      new OutputTag<>("too-late", TypeInformation.of(PageView.class));

  /**
   * Bounded out-of-orderness, as {@code WatermarkStrategy.forBoundedOutOfOrderness} gives, but with
   * the watermark emitted after every view instead of every {@code
   * pipeline.auto-watermark-interval}: with a handful of views, a periodic watermark would come
   * whenever the clock says, and which views are late would change from run to run. With real,
   * plentiful input use {@code forBoundedOutOfOrderness}.
   */
  static final class PerViewBoundedOutOfOrderness implements WatermarkGenerator<PageView> {
    private final long boundMillis;
    private long maxTimestamp = Long.MIN_VALUE;

    PerViewBoundedOutOfOrderness(Duration bound) {
      this.boundMillis = bound.toMillis();
    }

    @Override
    public void onEvent(PageView view, long timestamp, WatermarkOutput output) {
      if (timestamp > maxTimestamp) {
        maxTimestamp = timestamp;
        // As Flink's: the watermark is the newest time seen, minus the bound, minus 1 ms.
        output.emitWatermark(new Watermark(maxTimestamp - boundMillis - 1));
      }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {}
  }

  /** Counts the views of a window, one at a time, as they come (no list of views is kept). */
  public static final class CountViews implements AggregateFunction<PageView, Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(PageView value, Long accumulator) {
      return accumulator + 1;
    }

    @Override
    public Long getResult(Long accumulator) {
      return accumulator;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  /** Puts the page and its window beside the count. */
  public static final class WithWindow
      extends ProcessWindowFunction<Long, WindowCount, String, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
        String page, Context context, Iterable<Long> counts, Collector<WindowCount> out) {
      long views = counts.iterator().next();
      out.collect(
          new WindowCount(page, context.window().getStart(), context.window().getEnd(), views));
    }
  }

  /**
   * The pipeline: views in, a count per page and window out; {@code getSideOutput(TOO_LATE)} of the
   * result holds the views that came too late.
   */
  public static SingleOutputStreamOperator<WindowCount> counts(DataStream<PageView> views) {
    WatermarkStrategy<PageView> watermarks =
        WatermarkStrategy.<PageView>forGenerator(
                context -> new PerViewBoundedOutOfOrderness(OUT_OF_ORDERNESS))
            .withTimestampAssigner((view, previous) -> view.timestamp());
    return views
        .assignTimestampsAndWatermarks(watermarks)
        // One subtask sees the views in the order they came, so its watermark is theirs.
        .setParallelism(1)
        .uid("timestamps")
        .keyBy(PageView::page, Types.STRING)
        .window(TumblingEventTimeWindows.of(WINDOW_SIZE))
        .allowedLateness(ALLOWED_LATENESS)
        .sideOutputLateData(TOO_LATE)
        .aggregate(new CountViews(), new WithWindow())
        .uid("views-per-window")
        .name("Views per Window");
  }

  /** The lines of {@code --input}, or the built-in views; blank lines left out. */
  static List<String> lines(ParameterTool params) throws Exception {
    List<String> lines =
        params.has("input")
            ? Files.readAllLines(Path.of(params.getRequired("input")), StandardCharsets.UTF_8)
            : VIEWS;
    List<String> views = new ArrayList<>();
    for (String line : lines) {
      if (!line.isBlank()) {
        views.add(line);
      }
    }
    return views;
  }

  /**
   * The page views of {@code lines}, parsed by the job's tasks: the source sends the lines as they
   * are.
   */
  public static DataStream<PageView> parse(DataStream<String> lines) {
    return lines
        .map(PageView::parse)
        .returns(TypeInformation.of(PageView.class))
        // As the source and the timestamps: one subtask keeps the views in the order they came.
        .setParallelism(1)
        .uid("parse");
  }

  public static void main(String[] args) throws Exception {
    ParameterTool params = ParameterTool.fromArgs(args);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);

    DataStream<String> lines = env.fromData(lines(params)).uid("views").name("Page Views");
    SingleOutputStreamOperator<WindowCount> counts = counts(parse(lines));
    counts.print().uid("print");
    counts
        .getSideOutput(TOO_LATE)
        .map(view -> "too late: " + view)
        .returns(Types.STRING)
        .uid("too-late")
        .print()
        .uid("print-too-late");
    env.execute("windowed-page-views");
  }
}
