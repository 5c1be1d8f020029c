package io.weir.api.sink;

import java.io.PrintStream;

/**
 * Prints every element on standard output (or error), prefixed as in Flink with the subtask number
 * when the parallelism is above one: {@code "2> (hello,3)"}.
 */
public final class PrintSink<T> implements Sink<T> {
  private static final long serialVersionUID = 1L;

  private final boolean stdErr;

  public PrintSink() {
    this(false);
  }

  public PrintSink(boolean stdErr) {
    this.stdErr = stdErr;
  }

  /** Prints each element as it comes. */
  @Override
  public boolean keepsElements() {
    return false;
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) {
    PrintStream stream = stdErr ? System.err : System.out;
    String prefix = context.parallelism() > 1 ? (context.subtaskIndex() + 1) + "> " : "";
    return (element, ctx) -> stream.println(prefix + element);
  }
}
