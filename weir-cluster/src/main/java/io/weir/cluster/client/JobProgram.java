package io.weir.cluster.client;

import io.weir.api.JobClient;
import io.weir.api.config.Configuration;
import io.weir.api.graph.Pipeline;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobGraphBuilder;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A job's program: the entry class of its jar, its arguments and settings. Running it calls the
 * entry class's {@code main} on a thread of its own, with the job's class loader as the context
 * class loader and {@link ClusterExecutor} answering {@code execute}: on the JobManager it submits
 * the job, on a TaskManager it only captures the plan (as Flink's plan environments do).
 *
 * @param jarId the jar's content hash
 * @param entryClass the class with {@code main}
 * @param args its arguments
 * @param settings job settings ({@code -D}) that override the job's own
 */
public record JobProgram(
    String jarId, String entryClass, List<String> args, Map<String, String> settings) {

  public JobProgram {
    args = List.copyOf(args);
    settings = Map.copyOf(settings);
  }

  /** What {@code execute} does with a pipeline in this process. */
  public interface Submitter {
    JobClient submit(Pipeline pipeline) throws Exception;
  }

  /** Thrown through {@code main} once a TaskManager has the plan. */
  public static final class PlanCaptured extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PlanCaptured() {
      super("plan captured", null, false, false);
    }
  }

  /** The plan of {@code pipeline} with {@code settings} over the job's own settings. */
  public static JobGraph buildGraph(Pipeline pipeline, Map<String, String> settings) {
    return buildGraph(pipeline, new Configuration(), settings);
  }

  /**
   * The plan of {@code pipeline}: the job's own settings over {@code defaults} (the cluster's), and
   * {@code settings} (the submission's: {@code -D}, {@code -p}, {@code -s}) over both, as Flink
   * layers them.
   */
  public static JobGraph buildGraph(
      Pipeline pipeline, Configuration defaults, Map<String, String> settings) {
    Configuration conf = new Configuration(defaults);
    conf.addAll(pipeline.configuration());
    settings.forEach(conf::setString);
    return JobGraphBuilder.build(new Pipeline(pipeline.jobName(), pipeline.sinks(), conf));
  }

  /**
   * Runs {@code main} until it calls {@code execute} (then returns what the submitter returned) or
   * ends; {@code main} goes on running on its thread after that.
   *
   * @throws IllegalArgumentException naming the jar and class when there is no such class or no
   *     {@code main}, or {@code main} failed or returned before executing a job
   */
  public <T> T run(ClassLoader loader, Submitter submitter, long timeoutMillis, Class<T> type)
      throws Exception {
    return run(loader, submitter, timeoutMillis, type, () -> {});
  }

  /**
   * As {@link #run(ClassLoader, Submitter, long, Class)}; {@code onMainEnded} runs when main ends.
   */
  public <T> T run(
      ClassLoader loader,
      Submitter submitter,
      long timeoutMillis,
      Class<T> type,
      Runnable onMainEnded)
      throws Exception {
    String what = "entry class " + entryClass + " of jar " + jarId;
    Method main;
    try {
      Class<?> c = Class.forName(entryClass, false, loader);
      main = c.getMethod("main", String[].class);
      if (!Modifier.isStatic(main.getModifiers())) {
        throw new NoSuchMethodException("main is not static");
      }
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException(
          "The jar " + jarId + " has no class " + entryClass + ": check the entry class name", e);
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(
          "The " + what + " has no 'public static void main(String[])'", e);
    }
    CompletableFuture<Object> submitted = new CompletableFuture<>();
    ClusterExecutor.Context context =
        pipeline -> {
          try {
            JobClient client = submitter.submit(pipeline);
            submitted.complete(client);
            return client;
          } catch (PlanCaptured captured) {
            submitted.complete(null);
            throw captured;
          } catch (Exception e) {
            submitted.completeExceptionally(e);
            throw e;
          }
        };
    Thread thread =
        new Thread(
            () -> {
              ClusterExecutor.CONTEXT.set(context);
              try {
                main.invoke(null, (Object) args.toArray(String[]::new));
                submitted.completeExceptionally(
                    new IllegalArgumentException(
                        "The " + what + " returned without executing a job: call execute()"));
              } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof PlanCaptured) {
                  return;
                }
                submitted.completeExceptionally(
                    new IllegalArgumentException(
                        "The " + what + " failed: " + cause.getMessage(), cause));
              } catch (IllegalAccessException e) {
                submitted.completeExceptionally(e);
              } finally {
                ClusterExecutor.CONTEXT.remove();
                onMainEnded.run();
              }
            },
            "weir-main-" + entryClass);
    thread.setContextClassLoader(loader);
    thread.setDaemon(true);
    thread.start();
    try {
      return type.cast(submitted.get(timeoutMillis, TimeUnit.MILLISECONDS));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception ex) {
        throw ex;
      }
      throw e;
    } catch (TimeoutException e) {
      thread.interrupt();
      throw new IllegalArgumentException(
          "The " + what + " did not execute a job within " + timeoutMillis + " ms", e);
    }
  }
}
