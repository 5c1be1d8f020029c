package com.example.weirtest;

import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.RestartStrategyOptions;
import io.weir.api.functions.MapFunction;
import io.weir.api.sink.DiscardingSink;

/**
 * A user's job, outside Weir's packages, whose map fails on the fourth record with a cause of its
 * own: the CLI tests look for its frames ({@code at com.example.weirtest.FailingJob...}) in what
 * {@code weir run} prints, in the REST exception history and in the TaskManager's log. Arguments as
 * a Flink user gives them: {@code --input NAME}, which the failure's message repeats.
 */
public final class FailingJob {

  private FailingJob() {}

  /** Parses each record, and cannot parse the fourth. */
  public static final class Parse implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final String input;

    Parse(String input) {
      this.input = input;
    }

    @Override
    public Long map(Long value) {
      try {
        return parse(value);
      } catch (NumberFormatException e) {
        throw new IllegalStateException("Cannot parse record " + value + " of " + input, e);
      }
    }
  }

  static long parse(long value) {
    if (value == 3) {
      return Long.parseLong("three");
    }
    return value;
  }

  public static void main(String[] args) throws Exception {
    String input = "no --input";
    long records = 10;
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("--input")) {
        input = args[i + 1];
      } else if (args[i].equals("--records")) {
        records = Long.parseLong(args[i + 1]);
      }
    }
    Configuration conf = new Configuration();
    conf.setString(RestartStrategyOptions.RESTART_STRATEGY.key(), "none");
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(1);
    env.fromSequence(0, records - 1).map(new Parse(input)).sinkTo(new DiscardingSink<>());
    env.execute("failing-job");
  }
}
