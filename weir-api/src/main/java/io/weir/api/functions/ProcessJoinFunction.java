package io.weir.api.functions;

import io.weir.api.OutputTag;

/**
 * Gets each pair of an interval join: a left and a right element of the same key whose timestamps
 * are within the join's bounds, as Flink's {@code ProcessJoinFunction}.
 */
public abstract class ProcessJoinFunction<IN1, IN2, OUT> extends AbstractRichFunction {
  private static final long serialVersionUID = 1L;

  public abstract void processElement(IN1 left, IN2 right, Context ctx, Collector<OUT> out)
      throws Exception;

  /** The pair's timestamps; the results carry the larger one. */
  public abstract class Context {
    public abstract long getLeftTimestamp();

    public abstract long getRightTimestamp();

    /** The timestamp of the results: the larger of the two. */
    public abstract long getTimestamp();

    /** Emits {@code value} to the side output {@code outputTag}. */
    public abstract <X> void output(OutputTag<X> outputTag, X value);
  }
}
