package io.weir.cli;

import io.weir.api.JobExecutionResult;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.SinkFunction;
import io.weir.api.tuple.Tuple2;
import io.weir.examples.KeyedRunningSum;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the keyed running-sum example on the embedded local cluster and checks every key's final sum
 * against the arithmetic answer.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Run the keyed running-sum demo job on the embedded local cluster.")
final class DemoCommand implements Callable<Integer> {

  @Option(
      names = "--records",
      defaultValue = "5000000",
      description = "Numbers to sum (default: ${DEFAULT-VALUE}).")
  long records;

  @Option(
      names = "--keys",
      defaultValue = "1000",
      description = "Number of keys (default: ${DEFAULT-VALUE}).")
  long keys;

  @Option(
      names = "--parallelism",
      defaultValue = "2",
      description = "Parallelism (default: ${DEFAULT-VALUE}).")
  int parallelism;

  /** The last sum seen per key; the sink runs in this JVM on the embedded cluster. */
  static final Map<Long, Long> LAST_SUM = new ConcurrentHashMap<>();

  @Override
  public Integer call() throws Exception {
    PrintStream out = System.out;
    if (records < 1 || keys < 1) {
      out.println("--records and --keys must be at least 1");
      return 2;
    }
    LAST_SUM.clear();
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    KeyedRunningSum.sums(env.fromSequence(1, records), keys)
        .addSink(
            (SinkFunction<Tuple2<Long, Long>>) (value, ctx) -> LAST_SUM.put(value.f0, value.f1))
        .name("Remember Last Sum");

    out.printf(
        Locale.ROOT,
        "Weir demo: keyed running sum of 1..%,d over %,d keys, parallelism %d%n",
        records,
        keys,
        parallelism);
    long start = System.nanoTime();
    JobExecutionResult result = env.execute("weir-demo");
    double seconds = (System.nanoTime() - start) / 1e9;

    long wrong = 0;
    for (long key = 0; key < Math.min(keys, records + 1); key++) {
      long expected = expectedSum(key);
      Long actual = LAST_SUM.get(key);
      if (expected != 0 && (actual == null || actual != expected)) {
        wrong++;
        if (wrong <= 5) {
          out.printf(Locale.ROOT, "  key %d: expected %d but got %s%n", key, expected, actual);
        }
      }
    }
    out.printf(Locale.ROOT, "  job id      %s%n", result.getJobID());
    out.printf(Locale.ROOT, "  records     %,d%n", records);
    out.printf(Locale.ROOT, "  time        %.2f s%n", seconds);
    out.printf(Locale.ROOT, "  throughput  %,.0f records/s%n", records / seconds);
    out.printf(
        Locale.ROOT,
        "  keys        %,d checked, %s%n",
        LAST_SUM.size(),
        wrong == 0 ? "all sums correct" : wrong + " WRONG");
    return wrong == 0 ? 0 : 1;
  }

  /** The sum of all n in 1..records with n % keys == key. */
  private long expectedSum(long key) {
    long first = key == 0 ? keys : key;
    if (first > records) {
      return 0;
    }
    long count = (records - first) / keys + 1;
    long last = first + (count - 1) * keys;
    return count * (first + last) / 2;
  }
}
