package io.weir.api.functions;

/** A {@link SinkFunction} with open/close and a runtime context. */
public abstract class RichSinkFunction<T> extends AbstractRichFunction implements SinkFunction<T> {
  private static final long serialVersionUID = 1L;
}
