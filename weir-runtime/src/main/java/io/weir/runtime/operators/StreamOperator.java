package io.weir.runtime.operators;

/**
 * An operator of a task's chain, driven by the task thread: {@link #setup}, then {@link #open}
 * (inputs may arrive), then {@link #finish} at the end of input (flush what is buffered), and
 * {@link #close} always, also after a failure.
 */
public abstract class StreamOperator<OUT> {

  protected OperatorContext context;
  protected Output<OUT> output;

  public void setup(OperatorContext context, Output<OUT> output) {
    this.context = context;
    this.output = output;
  }

  public String getName() {
    return context.operatorName();
  }

  public OperatorContext getContext() {
    return context;
  }

  /** Restores or initializes state; runs before {@link #open}. */
  public void initializeState() throws Exception {}

  public void open() throws Exception {}

  /** All input has been processed; emit what is still buffered. */
  public void finish() throws Exception {}

  public void close() throws Exception {}

  /** The user object (function or sink) this operator runs, if any. */
  public Object getUserObject() {
    return null;
  }
}
