package io.weir.api.functions;

/**
 * A function over two connected keyed streams: both inputs are keyed by the same key type, and
 * keyed state and timers are scoped to the key of the current element.
 */
public abstract class KeyedCoProcessFunction<K, I1, I2, O> extends AbstractRichFunction {
  private static final long serialVersionUID = 1L;

  public abstract void processElement1(I1 value, Context ctx, Collector<O> out) throws Exception;

  public abstract void processElement2(I2 value, Context ctx, Collector<O> out) throws Exception;

  /** Called when a timer registered through {@link Context#timerService()} fires. */
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<O> out) throws Exception {}

  /** What the function can see while it processes an element. */
  public abstract class Context {
    public abstract Long timestamp();

    public abstract TimerService timerService();

    public abstract K getCurrentKey();
  }

  /** What the function can see while a timer fires. */
  public abstract class OnTimerContext extends Context {
    public abstract TimeDomain timeDomain();
  }
}
