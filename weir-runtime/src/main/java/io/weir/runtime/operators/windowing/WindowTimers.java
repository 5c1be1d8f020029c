package io.weir.runtime.operators.windowing;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.Types;
import io.weir.runtime.state.HeapKeyedStateBackend;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.time.ProcessingTimeService;
import java.util.List;

/**
 * The timers of a window operator's windows: at most one per key, window, timestamp and time
 * domain, registered and deleted for the backend's current key, fired in timestamp order with the
 * key set. Whatever holds them, a checkpoint holds them in the same keyed states: {@value
 * #EVENT_WINDOWS} and {@value #PROCESSING_WINDOWS} (key → timestamp → windows) and the timer
 * service's {@code _timers_event} and {@code _timers_processing} (key → timestamp), so a checkpoint
 * or savepoint restores with either implementation and on either backend. Task thread only.
 *
 * @param <K> key
 * @param <W> window
 */
interface WindowTimers<K, W> {

  /** Names of the keyed states that hold which windows wait for each timestamp. */
  String EVENT_WINDOWS = "_window_timers_event";

  String PROCESSING_WINDOWS = "_window_timers_processing";

  /** What runs when a window's timer fires; the backend's current key is {@code key}. */
  interface Target<K, W> {
    void onTimer(K key, long time, W window, boolean eventTime) throws Exception;
  }

  /**
   * On the heap backend the timers are a heap of (key, window, timestamp) written into the keyed
   * states only when a checkpoint is taken ({@link HeapWindowTimers}); on other backends they are
   * the keyed states themselves ({@link StateWindowTimers}).
   */
  static <K, W> WindowTimers<K, W> create(
      KeyedStateBackend<K> backend,
      ProcessingTimeService timeService,
      TypeInformation<W> windowType,
      Target<K, W> target) {
    TypeSerializer<List<W>> windowList = Types.LIST(windowType).createSerializer();
    return backend instanceof HeapKeyedStateBackend<K> heap
        ? new HeapWindowTimers<>(heap, timeService, windowList, target)
        : new StateWindowTimers<>(backend, timeService, windowList, target);
  }

  long currentProcessingTime();

  /** The last watermark passed to {@link #advanceWatermark}. */
  long currentWatermark();

  /** Registers the timer of the current key; nothing if it is registered already. */
  void register(long time, W window, boolean eventTime) throws Exception;

  /** Deletes the timer of the current key; nothing if there is none. */
  void delete(long time, W window, boolean eventTime) throws Exception;

  /** Fires the event-time timers up to {@code watermark}. */
  void advanceWatermark(long watermark) throws Exception;

  /** A checkpoint is about to capture the keyed state: the states must hold every timer. */
  void beforeSnapshot() throws Exception;

  /** Stops the physical processing-time callback; timers stay registered. */
  void close();
}
