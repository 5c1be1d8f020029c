package io.weir.api.functions;

/** A {@link FilterFunction} with open/close and a runtime context. */
public abstract class RichFilterFunction<T> extends AbstractRichFunction
    implements FilterFunction<T> {
  private static final long serialVersionUID = 1L;
}
