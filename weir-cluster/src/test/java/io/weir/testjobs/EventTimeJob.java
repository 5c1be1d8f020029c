package io.weir.testjobs;

import io.weir.api.StreamEnvironment;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.source.NumberSequenceSource;
import io.weir.api.typeutils.Types;

/**
 * A job with event time, shipped to the cluster as a jar: numbers 1..N, each its own timestamp in
 * milliseconds, watermarks as they rise, throttled as {@link KeyedCountJob}'s are, keyed and
 * counted, then discarded. Arguments: N, and records per millisecond of sleep.
 */
public final class EventTimeJob {

  private EventTimeJob() {}

  public static void main(String[] args) throws Exception {
    long n = Long.parseLong(args[0]);
    int every = Integer.parseInt(args[1]);
    StreamEnvironment env = StreamEnvironment.create();
    WatermarkStrategy<Long> timestamps =
        WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((v, ts) -> v);
    env.fromSource(new NumberSequenceSource(1, n), timestamps, "Timed Source", Types.LONG)
        .map(new KeyedCountJob.Throttle(every))
        .name("Throttle")
        .keyBy(v -> v % 10)
        .process(new KeyedCountJob.Count())
        .name("Count")
        .sinkTo(new DiscardingSink<>())
        .name("Discard");
    env.execute("event-time");
  }
}
