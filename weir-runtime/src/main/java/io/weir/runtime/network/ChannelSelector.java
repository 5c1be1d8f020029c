package io.weir.runtime.network;

/** Chooses the output channel of a record: the runtime side of a partitioning. */
public interface ChannelSelector<T> {

  /** The channel for {@code record}; ignored when {@link #isBroadcast()}. */
  int selectChannel(T record);

  /** True when every record goes to every channel. */
  default boolean isBroadcast() {
    return false;
  }
}
