package io.weir.api.functions;

/**
 * A function on a keyed stream: keyed state and timers are scoped to the key of the current element
 * (or of the firing timer).
 */
public abstract class KeyedProcessFunction<K, I, O> extends AbstractRichFunction {
  private static final long serialVersionUID = 1L;

  public abstract void processElement(I value, Context ctx, Collector<O> out) throws Exception;

  /** Called when a timer registered through {@link Context#timerService()} fires. */
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<O> out) throws Exception {}

  /** What the function can see while it processes an element. */
  public abstract class Context {
    /** The element's timestamp, or null if it has none. */
    public abstract Long timestamp();

    public abstract TimerService timerService();

    public abstract K getCurrentKey();
  }

  /** What the function can see while a timer fires. */
  public abstract class OnTimerContext extends Context {
    public abstract TimeDomain timeDomain();
  }
}
