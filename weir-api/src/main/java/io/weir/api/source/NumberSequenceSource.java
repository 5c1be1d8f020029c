package io.weir.api.source;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The numbers {@code from..to} inclusive, each exactly once, split into one contiguous range per
 * subtask. Behind {@code StreamEnvironment.fromSequence}.
 */
public final class NumberSequenceSource implements Source<Long, NumberSequenceSource.Split> {
  private static final long serialVersionUID = 1L;

  /**
   * Records emitted per {@code pollNext}, so the task can look at its mailbox in between: few
   * enough that a mail (a checkpoint trigger, a buffer-timeout tick) waits little behind a slow
   * chained operator, many enough that the turn costs nothing per record.
   */
  private static final int BATCH = 64;

  private final long from;
  private final long to;

  public NumberSequenceSource(long from, long to) {
    if (from > to) {
      throw new IllegalArgumentException(
          "fromSequence(" + from + ", " + to + "): 'from' must not be greater than 'to'");
    }
    this.from = from;
    this.to = to;
  }

  /**
   * The numbers still to emit.
   *
   * @param next the next number to emit
   * @param to the last number, inclusive
   */
  public record Split(long next, long to) {}

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public List<Split> createSplits(int parallelism) {
    List<Split> splits = new ArrayList<>(parallelism);
    // The count, to - from + 1, is up to 2^64 (the whole long range), which no long holds.
    BigInteger count =
        BigInteger.valueOf(to).subtract(BigInteger.valueOf(from)).add(BigInteger.ONE);
    BigInteger[] shareAndRest = count.divideAndRemainder(BigInteger.valueOf(parallelism));
    BigInteger start = BigInteger.valueOf(from);
    for (int i = 0; i < parallelism; i++) {
      BigInteger share =
          i < shareAndRest[1].intValue() ? shareAndRest[0].add(BigInteger.ONE) : shareAndRest[0];
      if (share.signum() > 0) {
        BigInteger end = start.add(share).subtract(BigInteger.ONE);
        splits.add(new Split(start.longValueExact(), end.longValueExact()));
        start = end.add(BigInteger.ONE);
      }
    }
    return splits;
  }

  @Override
  public SourceReader<Long, Split> createReader(SourceReaderContext context) {
    return new Reader();
  }

  @Override
  public SimpleVersionedSerializer<Split> getSplitSerializer() {
    return new SplitSerializer();
  }

  private static final class Reader implements SourceReader<Long, Split> {
    private final ArrayDeque<Split> splits = new ArrayDeque<>();
    private long next;
    private long last;
    private boolean hasCurrent;

    @Override
    public void addSplits(List<Split> newSplits) {
      splits.addAll(newSplits);
    }

    @Override
    public InputStatus pollNext(ReaderOutput<Long> output) {
      if (!hasCurrent) {
        Split split = splits.poll();
        if (split == null) {
          return InputStatus.END_OF_INPUT;
        }
        next = split.next();
        last = split.to();
        hasCurrent = true;
      }
      long end = Math.min(last, next + BATCH - 1);
      for (long i = next; i <= end; i++) {
        output.collect(i);
        if (i == Long.MAX_VALUE) {
          break;
        }
      }
      if (end == last) {
        hasCurrent = false;
        return splits.isEmpty() ? InputStatus.END_OF_INPUT : InputStatus.MORE_AVAILABLE;
      }
      next = end + 1;
      return InputStatus.MORE_AVAILABLE;
    }

    @Override
    public List<Split> snapshotState(long checkpointId) {
      List<Split> state = new ArrayList<>(splits.size() + 1);
      if (hasCurrent) {
        state.add(new Split(next, last));
      }
      state.addAll(splits);
      return state;
    }
  }

  private static final class SplitSerializer implements SimpleVersionedSerializer<Split> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(Split split) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(16);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeLong(split.next());
        out.writeLong(split.to());
      }
      return bytes.toByteArray();
    }

    @Override
    public Split deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1) {
        throw new IOException("Unknown number-sequence split version " + version);
      }
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        return new Split(in.readLong(), in.readLong());
      }
    }
  }
}
