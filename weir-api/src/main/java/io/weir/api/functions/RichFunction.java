package io.weir.api.functions;

/**
 * A function with a lifecycle and access to its {@link RuntimeContext}. The runtime calls {@link
 * #setRuntimeContext} first, then {@link #open} once before the first element, then {@link #close}
 * once after the last (also after a failure). All on the task thread.
 */
public interface RichFunction extends Function {

  default void open(OpenContext openContext) throws Exception {}

  default void close() throws Exception {}

  RuntimeContext getRuntimeContext();

  void setRuntimeContext(RuntimeContext context);
}
