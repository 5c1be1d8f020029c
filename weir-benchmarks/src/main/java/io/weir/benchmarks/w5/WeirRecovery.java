package io.weir.benchmarks.w5;

import io.weir.api.functions.Collector;
import io.weir.api.functions.OpenContext;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.w3.W3Job;
import io.weir.benchmarks.w3.WeirLargeState;

/**
 * W5 recovery on Weir: W3's job ({@link WeirLargeState}) with one injected task failure and a
 * fixed-delay restart with no delay (see {@link W5Job}).
 *
 * <p>Arguments: {@code <heap|rocksdb-incremental> [records]}. Prints one {@link Result} line.
 */
public final class WeirRecovery {
  private WeirRecovery() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          JobArgs job = JobArgs.parse(args, "W5", W5Job.CONFIGS, W3Job.DEFAULT_RECORDS);
          InjectedFailure.arm(W5Job.failAfter(job.records()));
          W3Job.Run run = WeirLargeState.run("W5", job, W5Job.restartSettings(), new FailOnce());
          W5Job.result(Engine.WEIR, job.config(), job.records(), run.nanos()).print();
        });
  }

  /** W3's function, failing once through {@link InjectedFailure}. */
  public static final class FailOnce extends WeirLargeState.WriteValue {
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
