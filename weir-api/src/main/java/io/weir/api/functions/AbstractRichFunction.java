package io.weir.api.functions;

/** Base class for rich functions: holds the runtime context. */
public abstract class AbstractRichFunction implements RichFunction {
  private static final long serialVersionUID = 1L;

  private transient RuntimeContext runtimeContext;

  @Override
  public RuntimeContext getRuntimeContext() {
    if (runtimeContext == null) {
      throw new IllegalStateException(
          "The runtime context of "
              + getClass().getName()
              + " is not set yet: use it in open() or later, not in the constructor");
    }
    return runtimeContext;
  }

  @Override
  public void setRuntimeContext(RuntimeContext context) {
    this.runtimeContext = context;
  }
}
