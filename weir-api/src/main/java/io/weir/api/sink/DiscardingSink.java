package io.weir.api.sink;

/** Drops every element; for benchmarks and tests. */
public final class DiscardingSink<T> implements Sink<T> {
  private static final long serialVersionUID = 1L;

  /** Never reads an element. */
  @Override
  public boolean keepsElements() {
    return false;
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) {
    return (element, ctx) -> {};
  }
}
