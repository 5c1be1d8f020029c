package io.weir.benchmarks.w8;

import io.weir.benchmarks.w8.ProcessingTrace.Stamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a JobManager failover cost a running job, from what the run recorded: the SIGKILL's time,
 * every task instance's {@link ProcessingTrace}, when the new leader first reported the job
 * running, and when checkpoints completed before and after the kill. Pure arithmetic, no clock: the
 * measurement in {@link JmFailover} gathers the inputs.
 *
 * <p>A task instance is <em>restored</em> if its first record came after the kill (a new attempt),
 * <em>adopted</em> if it started before the kill and still processed after the first checkpoint
 * completed after it (it kept running into the new leader's job); an instance that started before
 * and stopped (cancelled, failed) is neither.
 *
 * @param resumeMicros from the kill to the first record processed in the job as the new leader runs
 *     it: the first record of a restored instance, or the first record an adopted instance
 *     processed once the new leader reported the job running, whichever came first
 * @param restored restored task instances
 * @param adopted adopted task instances
 * @param gapStartMicros the last record processed before the longest pause of the whole job (all
 *     instances together) from the last checkpoint completed before the kill on, relative to the
 *     kill
 * @param gapEndMicros the first record after that pause, relative to the kill
 * @param lastCheckpointBeforeMillis the last checkpoint completed before the kill, relative to it
 *     (negative)
 * @param firstCheckpointAfterMillis the first checkpoint completed after the kill, relative to it
 * @param steadyRecords records processed from the start of the steady phase to the kill
 * @param steadyMicros the length of that phase
 */
record FailoverTimeline(
    long resumeMicros,
    int restored,
    int adopted,
    long gapStartMicros,
    long gapEndMicros,
    long lastCheckpointBeforeMillis,
    long firstCheckpointAfterMillis,
    long steadyRecords,
    long steadyMicros) {

  /** The longest time without any record processed, in microseconds. */
  long processingGapMicros() {
    return gapEndMicros - gapStartMicros;
  }

  /** From the last checkpoint completed before the kill to the first one after it. */
  long outputGapMillis() {
    return firstCheckpointAfterMillis - lastCheckpointBeforeMillis;
  }

  /**
   * Computes the timeline.
   *
   * @param killMicros the SIGKILL of the leader, epoch microseconds
   * @param takeoverMicros when the new leader first reported the job running, epoch microseconds
   * @param steadyFromMicros where the steady phase starts (the first completed checkpoint), for the
   *     pace before the kill
   * @param traces every task instance's trace
   * @param completedMillis when every checkpoint seen completed, before and after the kill, epoch
   *     milliseconds (the JobManagers' clock, this machine's)
   * @throws IllegalArgumentException naming what is missing: no checkpoint on one side of the kill,
   *     no record processed after it
   */
  static FailoverTimeline of(
      long killMicros,
      long takeoverMicros,
      long steadyFromMicros,
      List<List<Stamp>> traces,
      List<Long> completedMillis) {
    long killMillis = Math.floorDiv(killMicros, 1000);
    long lastBefore =
        completedMillis.stream()
            .filter(t -> t <= killMillis)
            .max(Long::compare)
            .orElseThrow(() -> missing("no checkpoint completed before the kill"));
    long firstAfter =
        completedMillis.stream()
            .filter(t -> t > killMillis)
            .min(Long::compare)
            .orElseThrow(() -> missing("no checkpoint completed after the kill"));

    long resume = Long.MAX_VALUE;
    int restored = 0;
    int adopted = 0;
    long steadyRecords = 0;
    List<Long> merged = new ArrayList<>();
    for (List<Stamp> trace : traces) {
      long first = trace.get(0).micros();
      if (first > killMicros) {
        restored++;
        resume = Math.min(resume, first);
      } else if (trace.get(trace.size() - 1).micros() > firstAfter * 1000) {
        adopted++;
        for (Stamp s : trace) {
          if (s.micros() >= takeoverMicros) {
            resume = Math.min(resume, s.micros());
            break;
          }
        }
      }
      steadyRecords += recordsBy(trace, killMicros) - recordsBy(trace, steadyFromMicros);
      for (Stamp s : trace) {
        if (s.micros() >= lastBefore * 1000) {
          merged.add(s.micros());
        }
      }
    }
    if (resume == Long.MAX_VALUE) {
      throw missing("no record was processed in the job after the kill");
    }
    merged.sort(Comparator.naturalOrder());
    long gapStart = 0;
    long gapEnd = 0;
    for (int i = 1; i < merged.size(); i++) {
      if (merged.get(i) - merged.get(i - 1) > gapEnd - gapStart) {
        gapStart = merged.get(i - 1);
        gapEnd = merged.get(i);
      }
    }
    return new FailoverTimeline(
        resume - killMicros,
        restored,
        adopted,
        gapStart - killMicros,
        gapEnd - killMicros,
        lastBefore - killMillis,
        firstAfter - killMillis,
        steadyRecords,
        killMicros - steadyFromMicros);
  }

  /**
   * Records processed in each second from {@code fromMicros} on, all instances together, until the
   * last line of any trace: how the job's pace went before, through and after the failover.
   */
  static List<Long> recordsPerSecond(List<List<Stamp>> traces, long fromMicros) {
    long end =
        traces.stream().mapToLong(t -> t.get(t.size() - 1).micros()).max().orElse(fromMicros);
    List<Long> perSecond = new ArrayList<>();
    for (long t = fromMicros; t + 1_000_000 <= end; t += 1_000_000) {
      long records = 0;
      for (List<Stamp> trace : traces) {
        records += recordsBy(trace, t + 1_000_000) - recordsBy(trace, t);
      }
      perSecond.add(records);
    }
    return perSecond;
  }

  /** The records {@code trace}'s instance had processed at its last line at or before {@code t}. */
  private static long recordsBy(List<Stamp> trace, long micros) {
    long records = 0;
    for (Stamp s : trace) {
      if (s.micros() > micros) {
        break;
      }
      records = s.records();
    }
    return records;
  }

  private static IllegalArgumentException missing(String what) {
    return new IllegalArgumentException(
        "JM-FAILOVER: "
            + what
            + "; see the run's JobManager and TaskManager logs (kept with"
            + " -D"
            + JmFailover.LOGS_PROPERTY
            + "=DIR)");
  }
}
