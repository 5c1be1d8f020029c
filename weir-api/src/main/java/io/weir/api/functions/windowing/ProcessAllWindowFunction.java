package io.weir.api.functions.windowing;

import io.weir.api.OutputTag;
import io.weir.api.functions.AbstractRichFunction;
import io.weir.api.functions.Collector;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.windowing.windows.Window;

/** {@link ProcessWindowFunction} for {@code windowAll}: the windows of the whole stream. */
public abstract class ProcessAllWindowFunction<IN, OUT, W extends Window>
    extends AbstractRichFunction {
  private static final long serialVersionUID = 1L;

  public abstract void process(Context context, Iterable<IN> elements, Collector<OUT> out)
      throws Exception;

  /** The window is being removed. */
  public void clear(Context context) throws Exception {}

  /** What the function sees of the firing window. */
  public abstract class Context {
    public abstract W window();

    public abstract KeyedStateStore windowState();

    public abstract KeyedStateStore globalState();

    public abstract <X> void output(OutputTag<X> outputTag, X value);
  }
}
