package io.weir.api.functions;

/** A {@link FlatMapFunction} with open/close and a runtime context. */
public abstract class RichFlatMapFunction<T, O> extends AbstractRichFunction
    implements FlatMapFunction<T, O> {
  private static final long serialVersionUID = 1L;
}
