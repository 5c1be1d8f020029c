package io.weir.benchmarks.w5;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.w3.FlinkLargeState;
import io.weir.benchmarks.w3.W3Job;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.util.Collector;

/**
 * W5 recovery on Apache Flink 2.x: W3's job ({@link FlinkLargeState}) with one injected task
 * failure and a fixed-delay restart with no delay (see {@link W5Job}).
 *
 * <p>Arguments: {@code <heap|rocksdb-incremental> [records]}. Prints one {@link Result} line.
 */
public final class FlinkRecovery {
  private FlinkRecovery() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          JobArgs job = JobArgs.parse(args, "W5", W5Job.CONFIGS, W3Job.DEFAULT_RECORDS);
          InjectedFailure.arm(W5Job.failAfter(job.records()));
          W3Job.Run run = FlinkLargeState.run("W5", job, W5Job.restartSettings(), new FailOnce());
          W5Job.result(Engine.FLINK, job.config(), job.records(), run.nanos()).print();
        });
  }

  /** W3's function, failing once through {@link InjectedFailure}. */
  public static final class FailOnce extends FlinkLargeState.WriteValue {
    private static final long serialVersionUID = 1L;

    private transient InjectedFailure.Probe probe;

    @Override
    public void open(OpenContext openContext) throws Exception {
      super.open(openContext);
      probe = InjectedFailure.probe();
    }

    @Override
    public void processElement(Long i, Context ctx, Collector<Long> out) throws Exception {
      probe.beforeRecord();
      super.processElement(i, ctx, out);
    }
  }
}
