package io.weir.api.functions;

/** A {@link MapFunction} with open/close and a runtime context. */
public abstract class RichMapFunction<T, O> extends AbstractRichFunction
    implements MapFunction<T, O> {
  private static final long serialVersionUID = 1L;
}
