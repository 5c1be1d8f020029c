package com.example.classloading;

import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Readings that arrive only after the job restarted, one per sensor, each of the same value: in its
 * first attempt the source has nothing yet and keeps the job running (its input has not ended), so
 * that {@link SensorTotalsJob} can fail once after a checkpoint; from the second attempt on it
 * emits its readings and ends. Its split, {@link Position}, is a class of the user's jar with a
 * serializer of the user's jar.
 */
public final class LateReadingsSource implements Source<Reading, LateReadingsSource.Position> {
  private static final long serialVersionUID = 1L;

  /** The index of the next reading to emit. */
  public record Position(int next) {}

  private final ArrayList<String> sensors;
  private final int value;

  public LateReadingsSource(List<String> sensors, int value) {
    this.sensors = new ArrayList<>(sensors);
    this.value = value;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public List<Position> createSplits(int parallelism) {
    return List.of(new Position(0));
  }

  @Override
  public SourceReader<Reading, Position> createReader(SourceReaderContext context) {
    boolean restarted = context.attemptNumber() > 0;
    return new SourceReader<>() {
      private final List<Position> positions = new ArrayList<>();
      private final CompletableFuture<Void> never = new CompletableFuture<>();

      @Override
      public void addSplits(List<Position> splits) {
        positions.addAll(splits);
      }

      @Override
      public InputStatus pollNext(ReaderOutput<Reading> output) {
        if (!restarted) {
          return InputStatus.NOTHING_AVAILABLE;
        }
        if (positions.isEmpty()) {
          return InputStatus.END_OF_INPUT;
        }
        int next = positions.get(0).next();
        if (next >= sensors.size()) {
          positions.remove(0);
          return positions.isEmpty() ? InputStatus.END_OF_INPUT : InputStatus.MORE_AVAILABLE;
        }
        output.collect(new Reading(sensors.get(next), value));
        positions.set(0, new Position(next + 1));
        return InputStatus.MORE_AVAILABLE;
      }

      @Override
      public CompletableFuture<Void> isAvailable() {
        // Never, in the first attempt: the task sleeps until mail (a checkpoint) wakes it.
        return restarted ? CompletableFuture.completedFuture(null) : never;
      }

      @Override
      public List<Position> snapshotState(long checkpointId) {
        return List.copyOf(positions);
      }
    };
  }

  @Override
  public SimpleVersionedSerializer<Position> getSplitSerializer() {
    return new PositionSerializer();
  }

  /** A {@link Position} as four bytes. */
  public static final class PositionSerializer implements SimpleVersionedSerializer<Position> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(Position position) {
      return ByteBuffer.allocate(4).putInt(position.next()).array();
    }

    @Override
    public Position deserialize(int version, byte[] serialized) {
      return new Position(ByteBuffer.wrap(serialized).getInt());
    }
  }
}
