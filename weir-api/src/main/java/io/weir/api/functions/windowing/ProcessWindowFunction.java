package io.weir.api.functions.windowing;

import io.weir.api.OutputTag;
import io.weir.api.functions.AbstractRichFunction;
import io.weir.api.functions.Collector;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.windowing.windows.Window;

/**
 * Runs when a window of a key fires, with the window's elements (all of them, or the one result of
 * a preceding {@code reduce}/{@code aggregate}), as Flink's {@code ProcessWindowFunction}.
 */
public abstract class ProcessWindowFunction<IN, OUT, KEY, W extends Window>
    extends AbstractRichFunction {
  private static final long serialVersionUID = 1L;

  public abstract void process(KEY key, Context context, Iterable<IN> elements, Collector<OUT> out)
      throws Exception;

  /** The window is being removed: clear what was kept in {@link Context#windowState()}. */
  public void clear(Context context) throws Exception {}

  /** What the function sees of the firing window. */
  public abstract class Context {
    public abstract W window();

    public abstract long currentProcessingTime();

    public abstract long currentWatermark();

    /** State per key and window (value and reducing state). */
    public abstract KeyedStateStore windowState();

    /** State per key, shared by all windows of the key. */
    public abstract KeyedStateStore globalState();

    /** Emits {@code value} to the side output {@code outputTag}. */
    public abstract <X> void output(OutputTag<X> outputTag, X value);
  }
}
