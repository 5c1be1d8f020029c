package io.weir.api.source.datagen;

import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.NumberSequenceSource;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.api.typeutils.ResultTypeQueryable;
import io.weir.api.typeutils.TypeInformation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code count} records made by a {@link GeneratorFunction} from their indexes {@code 0 .. count -
 * 1}, each exactly once, optionally at a limited rate: Flink's {@code DataGeneratorSource}. The
 * indexes are split into one contiguous range per subtask and checkpointed as the position in that
 * range, so a restore replays exactly what followed the checkpoint.
 *
 * <p>With {@link RateLimiterStrategy#perSecond}, each subtask emits its share of the rate on a
 * fixed schedule: record {@code k} of a subtask is due {@code k} intervals after its first. A
 * reader with nothing due returns {@link InputStatus#NOTHING_AVAILABLE} and is woken when the next
 * record is due, but never sooner than {@link #MIN_WAIT_NANOS} later, so at high rates records go
 * out in small bursts (at 50 000 per second and subtask, about 50 per millisecond) instead of
 * waking the task for each. A reader that fell behind (back-pressure, a pause) catches up at most
 * one second's worth of records, as Flink's Guava-based limiter does, and forgets the rest.
 */
public final class DataGeneratorSource<O>
    implements Source<O, NumberSequenceSource.Split>, ResultTypeQueryable<O> {
  private static final long serialVersionUID = 1L;

  /** Shortest wait for the next due record: bounds the task's wake-ups to 1000 per second. */
  static final long MIN_WAIT_NANOS = 1_000_000L;

  /** Records emitted per {@code pollNext}, so the task can look at its mailbox in between. */
  private static final int BATCH = 256;

  private final GeneratorFunction<Long, O> generatorFunction;
  private final NumberSequenceSource indexes;
  private final RateLimiterStrategy rateLimiterStrategy;

  /** For the job's graph only: a subtask's copy of the source has none (it is not serializable). */
  private final transient TypeInformation<O> typeInfo;

  /** {@code count} records as fast as the job takes them. */
  public DataGeneratorSource(
      GeneratorFunction<Long, O> generatorFunction, long count, TypeInformation<O> typeInfo) {
    this(generatorFunction, count, RateLimiterStrategy.noOp(), typeInfo);
  }

  /** {@code count} records at the rate {@code rateLimiterStrategy} allows. */
  public DataGeneratorSource(
      GeneratorFunction<Long, O> generatorFunction,
      long count,
      RateLimiterStrategy rateLimiterStrategy,
      TypeInformation<O> typeInfo) {
    if (count < 1) {
      throw new IllegalArgumentException(
          "DataGeneratorSource needs a count of at least 1 record, not " + count);
    }
    this.generatorFunction = Objects.requireNonNull(generatorFunction, "generator function");
    this.indexes = new NumberSequenceSource(0, count - 1);
    this.rateLimiterStrategy = Objects.requireNonNull(rateLimiterStrategy, "rate limiter strategy");
    this.typeInfo = Objects.requireNonNull(typeInfo, "type information");
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public List<NumberSequenceSource.Split> createSplits(int parallelism) {
    return indexes.createSplits(parallelism);
  }

  @Override
  public SourceReader<O, NumberSequenceSource.Split> createReader(SourceReaderContext context)
      throws Exception {
    generatorFunction.open(context);
    double nanosPerRecord = rateLimiterStrategy.nanosPerRecord(context.parallelism());
    return new Reader<>(
        generatorFunction, nanosPerRecord == 0 ? null : new Schedule(nanosPerRecord));
  }

  @Override
  public SimpleVersionedSerializer<NumberSequenceSource.Split> getSplitSerializer() {
    return indexes.getSplitSerializer();
  }

  @Override
  public TypeInformation<O> getProducedType() {
    return typeInfo;
  }

  /**
   * The fixed schedule of one subtask: slot {@code k} is due {@code k} intervals after the first
   * poll; a slot is used by one record.
   */
  static final class Schedule {
    private final double nanosPerRecord;
    private final long maxBacklog;
    private long start;
    private boolean started;
    private long used;

    Schedule(double nanosPerRecord) {
      this.nanosPerRecord = nanosPerRecord;
      this.maxBacklog = Math.max(1, (long) (1e9 / nanosPerRecord));
    }

    /** How many records may go out at {@code now} (none or more). */
    long permits(long now) {
      if (!started) {
        start = now;
        started = true;
      }
      long due = (long) ((now - start) / nanosPerRecord) + 1;
      if (due - used > maxBacklog) {
        used = due - maxBacklog; // more than a second behind: the older slots are gone
      }
      return Math.max(0, due - used);
    }

    /** {@code records} of the permits were used. */
    void use(long records) {
      used += records;
    }

    /** Nanoseconds from {@code now} until the next unused slot is due. */
    long nanosUntilNext(long now) {
      return start + (long) Math.ceil(used * nanosPerRecord) - now;
    }
  }

  private static final class Reader<O> implements SourceReader<O, NumberSequenceSource.Split> {
    private final GeneratorFunction<Long, O> generator;
    private final Schedule schedule; // null: no limit
    private final ArrayDeque<NumberSequenceSource.Split> splits = new ArrayDeque<>();
    private long next;
    private long last;
    private boolean hasCurrent;
    private CompletableFuture<Void> available = CompletableFuture.completedFuture(null);

    Reader(GeneratorFunction<Long, O> generator, Schedule schedule) {
      this.generator = generator;
      this.schedule = schedule;
    }

    @Override
    public void addSplits(List<NumberSequenceSource.Split> newSplits) {
      splits.addAll(newSplits);
    }

    @Override
    public InputStatus pollNext(ReaderOutput<O> output) throws Exception {
      if (!hasCurrent) {
        NumberSequenceSource.Split split = splits.poll();
        if (split == null) {
          return InputStatus.END_OF_INPUT;
        }
        next = split.next();
        last = split.to();
        hasCurrent = true;
      }
      long records = Math.min(BATCH, last - next + 1);
      if (schedule != null) {
        long now = System.nanoTime();
        long permits = schedule.permits(now);
        if (permits == 0) {
          long wait = Math.max(MIN_WAIT_NANOS, schedule.nanosUntilNext(now));
          available =
              new CompletableFuture<Void>().completeOnTimeout(null, wait, TimeUnit.NANOSECONDS);
          return InputStatus.NOTHING_AVAILABLE;
        }
        records = Math.min(records, permits);
        schedule.use(records);
      }
      for (long i = 0; i < records; i++) {
        output.collect(generator.map(next++));
      }
      if (next > last) {
        hasCurrent = false;
        return splits.isEmpty() ? InputStatus.END_OF_INPUT : InputStatus.MORE_AVAILABLE;
      }
      return InputStatus.MORE_AVAILABLE;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      return available;
    }

    @Override
    public List<NumberSequenceSource.Split> snapshotState(long checkpointId) {
      List<NumberSequenceSource.Split> state = new ArrayList<>(splits.size() + 1);
      if (hasCurrent) {
        state.add(new NumberSequenceSource.Split(next, last));
      }
      state.addAll(splits);
      return state;
    }

    @Override
    public void close() throws Exception {
      generator.close();
    }
  }
}
