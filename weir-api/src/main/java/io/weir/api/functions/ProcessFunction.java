package io.weir.api.functions;

/** The most general one-input function: any number of outputs per element. */
public abstract class ProcessFunction<I, O> extends AbstractRichFunction {
  private static final long serialVersionUID = 1L;

  public abstract void processElement(I value, Context ctx, Collector<O> out) throws Exception;

  /** What a process function can see while it processes an element. */
  public interface Context {
    /** The element's timestamp, or null if it has none. */
    Long timestamp();

    TimerService timerService();
  }
}
