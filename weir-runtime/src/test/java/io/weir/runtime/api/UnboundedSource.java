package io.weir.runtime.api;

import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An unbounded test source: subtask {@code i} of {@code p} emits {@code i, i + p, i + 2p, ...}, so
 * every number is emitted by exactly one subtask and numbers increase per subtask. It never ends;
 * the job must be cancelled.
 *
 * <ul>
 *   <li>{@code intervalMillis > 0}: one record per poll, then {@code NOTHING_AVAILABLE} with a
 *       future that a scheduled executor completes after the interval;
 *   <li>{@code intervalMillis == 0}: records in a {@code MORE_AVAILABLE} loop, as fast as the job
 *       takes them.
 * </ul>
 *
 * After {@code limit} records per subtask the reader stays idle ({@code NOTHING_AVAILABLE} with a
 * future that never completes) until the job is cancelled.
 */
public final class UnboundedSource implements Source<Long, Integer> {
  private static final long serialVersionUID = 1L;

  private final long limit;
  private final long intervalMillis;

  private UnboundedSource(long limit, long intervalMillis) {
    if (limit < 0 || intervalMillis < 0) {
      throw new IllegalArgumentException("limit and interval must not be negative");
    }
    this.limit = limit;
    this.intervalMillis = intervalMillis;
  }

  /** Emits {@code limit} records per subtask, one every {@code intervalMillis}, then idles. */
  public static UnboundedSource emitting(long limit, long intervalMillis) {
    return new UnboundedSource(limit, intervalMillis);
  }

  /** Emits forever, one record every {@code intervalMillis} (0: as fast as possible). */
  public static UnboundedSource endless(long intervalMillis) {
    return new UnboundedSource(Long.MAX_VALUE, intervalMillis);
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public List<Integer> createSplits(int parallelism) {
    List<Integer> splits = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      splits.add(i);
    }
    return splits;
  }

  @Override
  public SourceReader<Long, Integer> createReader(SourceReaderContext context) {
    return new Reader(context.parallelism(), limit, intervalMillis);
  }

  @Override
  public SimpleVersionedSerializer<Integer> getSplitSerializer() {
    return new SplitSerializer();
  }

  private static final class Reader implements SourceReader<Long, Integer> {
    private final int stride;
    private final long limit;
    private final long intervalMillis;
    private final List<Integer> splits = new ArrayList<>();
    private final CompletableFuture<Void> never = new CompletableFuture<>();
    private ScheduledExecutorService scheduler;
    private CompletableFuture<Void> available = CompletableFuture.completedFuture(null);
    private long emitted;

    Reader(int stride, long limit, long intervalMillis) {
      this.stride = stride;
      this.limit = limit;
      this.intervalMillis = intervalMillis;
    }

    @Override
    public void addSplits(List<Integer> newSplits) {
      splits.addAll(newSplits);
    }

    @Override
    public InputStatus pollNext(ReaderOutput<Long> output) {
      if (splits.isEmpty() || emitted >= limit) {
        available = never;
        return InputStatus.NOTHING_AVAILABLE;
      }
      output.collect(splits.get(0) + emitted * stride);
      emitted++;
      if (emitted >= limit) {
        available = never;
        return InputStatus.NOTHING_AVAILABLE;
      }
      if (intervalMillis == 0) {
        return InputStatus.MORE_AVAILABLE;
      }
      if (scheduler == null) {
        scheduler =
            Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "unbounded-test-source-timer");
                  t.setDaemon(true);
                  return t;
                });
      }
      CompletableFuture<Void> next = new CompletableFuture<>();
      available = next;
      var unused =
          scheduler.schedule(() -> next.complete(null), intervalMillis, TimeUnit.MILLISECONDS);
      return InputStatus.NOTHING_AVAILABLE;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      return available;
    }

    @Override
    public List<Integer> snapshotState(long checkpointId) {
      return List.copyOf(splits);
    }

    @Override
    public void close() {
      if (scheduler != null) {
        scheduler.shutdownNow();
      }
    }
  }

  private static final class SplitSerializer implements SimpleVersionedSerializer<Integer> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(Integer split) {
      return ByteBuffer.allocate(4).putInt(split).array();
    }

    @Override
    public Integer deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1) {
        throw new IOException("Unknown split version " + version);
      }
      return ByteBuffer.wrap(serialized).getInt();
    }
  }
}
