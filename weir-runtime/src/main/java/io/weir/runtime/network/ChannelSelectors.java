package io.weir.runtime.network;

import io.weir.api.functions.KeySelector;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.state.KeyGroupRangeAssignment;

/** The selectors behind forward, rebalance, broadcast and keyBy. */
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
