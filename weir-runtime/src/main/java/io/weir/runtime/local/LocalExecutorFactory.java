package io.weir.runtime.local;

import io.weir.api.PipelineExecutor;

/** Registers the embedded local cluster with {@link java.util.ServiceLoader}. */
public final class LocalExecutorFactory implements PipelineExecutor.Factory {

  @Override
  public int priority() {
    return 0;
  }

  @Override
  public PipelineExecutor create() {
    return new LocalExecutor();
  }
}
