package io.weir.runtime.network;

import io.weir.api.functions.KeySelector;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.state.KeyGroupRangeAssignment;

/** The selectors behind forward, rebalance, rescale, shuffle, global, broadcast and keyBy. */
public final class ChannelSelectors {

  private ChannelSelectors() {}

  /** One channel: the consumer subtask with the producer's index. */
  public static <T> ChannelSelector<T> forward() {
    return record -> 0;
  }

  /** Round robin, starting at {@code start} so parallel producers do not all hit channel 0. */
  public static <T> ChannelSelector<T> rebalance(int numberOfChannels, int start) {
    return new ChannelSelector<>() {
      private int next = start % numberOfChannels;

      @Override
      public int selectChannel(T record) {
        int channel = next;
        next = channel + 1 == numberOfChannels ? 0 : channel + 1;
        return channel;
      }
    };
  }

  /** A uniformly random channel for every record. */
  public static <T> ChannelSelector<T> shuffle(int numberOfChannels) {
    return record -> java.util.concurrent.ThreadLocalRandom.current().nextInt(numberOfChannels);
  }

  /** Always the first channel: the consumer's subtask 0. */
  public static <T> ChannelSelector<T> global() {
    return record -> 0;
  }

  /**
   * Round robin over a producer's channels under rescale: the wiring connects it only to the
   * consumers of its {@link #rescaleRange}, in order, so channel 0 is the first of them.
   */
  public static <T> ChannelSelector<T> rescale(int numberOfChannels) {
    return rebalance(numberOfChannels, 0);
  }

  /**
   * The consumers {@code [from, to)} that a producer feeds under rescale: Flink's pointwise
   * distribution. With fewer producers than consumers each feeds a contiguous share of them;
   * otherwise neighbouring producers share one consumer. Every consumer has at least one producer.
   */
  public static int[] rescaleRange(int producers, int consumers, int producerIndex) {
    if (producers >= consumers) {
      // Consumer c takes producers [c * p / n, (c + 1) * p / n), as Flink's pointwise edges.
      for (int c = 0; c < consumers; c++) {
        int end = (int) ((long) (c + 1) * producers / consumers);
        if (producerIndex < end) {
          return new int[] {c, c + 1};
        }
      }
      return new int[] {consumers - 1, consumers};
    }
    int from = (int) (((long) producerIndex * consumers + producers - 1) / producers);
    int to = (int) (((long) (producerIndex + 1) * consumers + producers - 1) / producers);
    return new int[] {from, to};
  }

  public static <T> ChannelSelector<T> broadcast() {
    return new ChannelSelector<>() {
      @Override
      public int selectChannel(T record) {
        return 0;
      }

      @Override
      public boolean isBroadcast() {
        return true;
      }
    };
  }

  /**
   * The subtask owning the record's key group. {@code consumerName} names the keyed operator in
   * errors, since the key selector belongs to its keyBy.
   */
  public static <T, K> ChannelSelector<T> keyGroup(
      KeySelector<T, K> keySelector,
      int maxParallelism,
      int numberOfChannels,
      String consumerName) {
    return record -> {
      K key;
      try {
        key = keySelector.getKey(record);
      } catch (Exception e) {
        throw new OperatorException("Key Selector of '" + consumerName + "'", e);
      }
      if (key == null) {
        throw new OperatorException(
            "Key Selector of '" + consumerName + "'",
            new NullPointerException(
                "The key selector returned null for element '"
                    + record
                    + "'. Keys must not be null: map missing keys to a placeholder or filter"
                    + " those elements out before keyBy."));
      }
      return KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
          maxParallelism,
          numberOfChannels,
          KeyGroupRangeAssignment.computeKeyGroupForKeyHash(key.hashCode(), maxParallelism));
    };
  }
}
