package io.weir.api.functions;

/** A function over two connected streams of different types. */
public abstract class CoProcessFunction<I1, I2, O> extends AbstractRichFunction {
  private static final long serialVersionUID = 1L;

  public abstract void processElement1(I1 value, Context ctx, Collector<O> out) throws Exception;

  public abstract void processElement2(I2 value, Context ctx, Collector<O> out) throws Exception;

  /** What the function can see while it processes an element. */
  public abstract class Context {
    public abstract Long timestamp();

    public abstract TimerService timerService();
  }
}
