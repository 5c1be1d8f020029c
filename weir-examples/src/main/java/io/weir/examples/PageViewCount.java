package io.weir.examples;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.source.datagen.DataGeneratorSource;
import io.weir.api.source.datagen.GeneratorFunction;
import io.weir.api.source.datagen.RateLimiterStrategy;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.util.ParameterTool;
import java.time.Duration;

/**
 * An unbounded, stateful, checkpointed job: a generator of page views that never ends, keyed by
 * page, counting the views of each page in keyed state.
 *
 * <p>This is the job to try checkpoints and savepoints with: stop it with a savepoint, resume it
 * from the savepoint, and each page's count goes on from where it stopped (docs/examples.md walks
 * through the commands). Every operator has a {@code uid}: the uid, not the position in the graph,
 * is what a savepoint's state is matched to when the job resumes, so keep the uids when you change
 * the job.
 *
 * <p>Parameters:
 *
 * <ul>
 *   <li>{@code --rate N}: page views per second, over all parallel sources (default 10);
 *   <li>{@code --events N}: stop after N page views (default: never, the job is unbounded);
 *   <li>{@code --checkpoint-interval MS}: milliseconds between checkpoints (default 5000);
 *   <li>{@code --checkpoint-dir URI}: where checkpoints go, e.g. {@code file:///tmp/weir-ckpt}
 *       (default: the {@code execution.checkpointing.dir} setting, else the JobManager's memory).
 * </ul>
 *
 * <p>Run it with {@code ./weir run weir-examples/target/weir-examples-*.jar PageViewCount
 * --checkpoint-dir file:///tmp/weir-checkpoints}.
 */
public final class PageViewCount {

  private PageViewCount() {}

  /** The pages the generator visits. */
  static final String[] PAGES = {"/home", "/search", "/cart", "/checkout", "/help"};

  /** A page view: who looked at which page; {@code index} numbers the views from 0. */
  public record PageView(long index, String user, String page) {}

  /** A page and the views it had so far. */
  public record PageCount(String page, long views) {
    @Override
    public String toString() {
      return "(" + page + "," + views + ")";
    }
  }

  /**
   * Makes page view number {@code index}. A generator function must be deterministic: after a
   * restore the source replays the indexes that followed the checkpoint, and the same index must
   * give the same page view again for the result to be exactly-once.
   */
  public static final class PageViewGenerator implements GeneratorFunction<Long, PageView> {
    private static final long serialVersionUID = 1L;

    @Override
    public PageView map(Long index) {
      String page = PAGES[(int) ((index % 5 + index / 5 % 3) % PAGES.length)];
      return new PageView(index, "user-" + (index % 13), page);
    }
  }

  /**
   * Counts the views of its key's page. The count lives in a {@link ValueState}: one value per
   * page, kept by the state backend, included in every checkpoint and savepoint and restored with
   * them.
   */
  public static final class CountViews extends KeyedProcessFunction<String, PageView, PageCount> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> views;

    @Override
    public void open(OpenContext openContext) {
      views = getRuntimeContext().getState(new ValueStateDescriptor<>("views", Types.LONG));
    }

    @Override
    public void processElement(PageView view, Context ctx, Collector<PageCount> out)
        throws Exception {
      Long current = views.value();
      long next = current == null ? 1 : current + 1;
      views.update(next);
      out.collect(new PageCount(ctx.getCurrentKey(), next));
    }
  }

  /**
   * The source: {@code events} page views at {@code ratePerSecond} (0 for as fast as the job takes
   * them). A {@link DataGeneratorSource} checkpoints its position, so a restore replays exactly
   * what followed the checkpoint.
   */
  public static DataGeneratorSource<PageView> source(long events, double ratePerSecond) {
    return new DataGeneratorSource<>(
        new PageViewGenerator(),
        events,
        ratePerSecond > 0
            ? RateLimiterStrategy.perSecond(ratePerSecond)
            : RateLimiterStrategy.noOp(),
        TypeInformation.of(PageView.class));
  }

  /** The pipeline: page views in, (page, views so far) out, one result per view. */
  public static DataStream<PageCount> counts(StreamEnvironment env, ParameterTool params) {
    long events = params.getLong("events", Long.MAX_VALUE);
    double rate = params.getDouble("rate", 10);
    return env.fromSource(source(events, rate), WatermarkStrategy.noWatermarks(), "Page Views")
        .uid("page-views")
        .keyBy(PageView::page, Types.STRING)
        .process(new CountViews())
        .uid("count-views")
        .name("Count Views");
  }

  /** Checkpointing as {@code --checkpoint-interval} and {@code --checkpoint-dir} say. */
  public static void configureCheckpoints(StreamEnvironment env, ParameterTool params) {
    // A checkpoint every few seconds: on a failure the job restarts from the last one, with each
    // page's count as it was then and the source at the matching position.
    env.enableCheckpointing(Duration.ofMillis(params.getLong("checkpoint-interval", 5000)));
    if (params.has("checkpoint-dir")) {
      env.getCheckpointConfig().setCheckpointStorage(params.getRequired("checkpoint-dir"));
    }
  }

  public static void main(String[] args) throws Exception {
    ParameterTool params = ParameterTool.fromArgs(args);
    StreamEnvironment env = StreamEnvironment.create();
    configureCheckpoints(env, params);
    counts(env, params).print().uid("print");
    env.execute("page-view-count");
  }
}
