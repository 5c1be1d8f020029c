package io.weir.cluster.client;

import io.weir.api.JobClient;
import io.weir.api.PipelineExecutor;
import io.weir.api.graph.Pipeline;
import io.weir.runtime.local.LocalExecutor;

/**
 * Answers {@code execute} of a job's {@code main} run by a JobManager or TaskManager (see {@link
 * JobProgram}); anywhere else, where no program runs, it is local execution (weir-runtime's {@code
 * LocalExecutor}).
 */
public final class ClusterExecutor implements PipelineExecutor {

  /** What the program running on this thread (and threads it starts) does with its pipeline. */
  public interface Context {
    JobClient submit(Pipeline pipeline) throws Exception;
  }

  static final InheritableThreadLocal<Context> CONTEXT = new InheritableThreadLocal<>();

  /**
   * From now on {@code execute} on this thread (and threads it starts) goes to {@code context}: how
   * the in-JVM deployments run an unchanged job.
   */
  public static void setContext(Context context) {
    CONTEXT.set(context);
  }

  /** Undoes {@link #setContext}: {@code execute} on this thread runs on the local engine again. */
  public static void clearContext() {
    CONTEXT.remove();
  }

  @Override
  public JobClient execute(Pipeline pipeline) throws Exception {
    Context context = CONTEXT.get();
    return context == null ? new LocalExecutor().execute(pipeline) : context.submit(pipeline);
  }

  /** Registered with {@link java.util.ServiceLoader}; wins over the local executor. */
  public static final class Factory implements PipelineExecutor.Factory {
    @Override
    public int priority() {
      return 10;
    }

    @Override
    public PipelineExecutor create() {
      return new ClusterExecutor();
    }
  }
}
