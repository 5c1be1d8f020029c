package io.weir.runtime.operators.windowing;

import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.Types;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.time.InternalTimerService;
import io.weir.runtime.time.ProcessingTimeService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Window timers kept in the keyed states themselves, for backends whose state is not on the heap
 * (RocksDB): the keyed timer service (key, timestamp) plus which windows wait for each timestamp
 * ({@value #EVENT_WINDOWS}, {@value #PROCESSING_WINDOWS}). Task thread only.
 */
@SuppressWarnings("unchecked")
final class StateWindowTimers<K, W>
    implements WindowTimers<K, W>, InternalTimerService.Triggerable<K> {

  private final KeyedStateBackend<K> backend;
  private final Target<K, W> target;
  private final MapState<Long, List<W>> eventTimers;
  private final MapState<Long, List<W>> processingTimers;
  private final InternalTimerService<K> timers;

  /**
   * Window timers known to be in the states: a trigger registers its window's timer for every
   * element, and the cleanup timer is registered again with it, so without this each element would
   * read the timer state twice (two reads of RocksDB). Only what the state holds is cached (every
   * path that removes a timer from the state removes it here first), so a miss or a fresh instance
   * after a restore just reads the state; cleared when it reaches {@link #MAX_KNOWN_TIMERS}.
   */
  private final Set<KnownTimer<K, W>> knownTimers = new HashSet<>();

  /**
   * The timers registered or found last, in front of {@link #knownTimers}, filled round robin: a
   * window's trigger timer and its cleanup timer are the same timer when there is no allowed
   * lateness, registered one after the other, and an element of a key seen a moment ago (a hot key)
   * registers the same timers again, so these need no lookup in the large set, whose probes are
   * mostly cache misses. Emptied when any timer is removed.
   */
  private final KnownTimer<K, W>[] recentTimers = new KnownTimer[RECENT_TIMERS];

  private int nextRecent;

  /** Size of {@link #recentTimers}: a few elements' windows (a sliding window has several). */
  static final int RECENT_TIMERS = 16;

  /** Bounds {@link #knownTimers}: about 100 bytes each. */
  static final int MAX_KNOWN_TIMERS = 1 << 18;

  StateWindowTimers(
      KeyedStateBackend<K> backend,
      ProcessingTimeService timeService,
      TypeSerializer<List<W>> windowList,
      Target<K, W> target) {
    this.backend = backend;
    this.target = target;
    this.eventTimers =
        backend.getMapState(
            new MapStateDescriptor<>(EVENT_WINDOWS, Types.LONG.createSerializer(), windowList));
    this.processingTimers =
        backend.getMapState(
            new MapStateDescriptor<>(
                PROCESSING_WINDOWS, Types.LONG.createSerializer(), windowList.duplicate()));
    this.timers = new InternalTimerService<>(backend, timeService, this);
  }

  /**
   * A window timer of a key (event or processing time) that the timer state holds. Not a record: a
   * record's generated {@code equals} compares its components through method handles, which
   * profiles showed on the hot path; this one compares the time first, then the window and key.
   */
  private static final class KnownTimer<K, W> {
    final K key;
    final long time;
    final W window;
    final boolean eventTime;
    private final int hash;

    KnownTimer(K key, long time, W window, boolean eventTime) {
      this.key = key;
      this.time = time;
      this.window = window;
      this.eventTime = eventTime;
      int h = 31 * Objects.hashCode(key) + window.hashCode();
      h = 31 * h + Long.hashCode(time);
      this.hash = 31 * h + (eventTime ? 1 : 0);
    }

    boolean matches(K key, long time, W window, boolean eventTime) {
      return this.time == time
          && this.eventTime == eventTime
          && this.window.equals(window)
          && Objects.equals(this.key, key);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof KnownTimer<?, ?> other
          && hash == other.hash
          && time == other.time
          && eventTime == other.eventTime
          && window.equals(other.window)
          && Objects.equals(key, other.key);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  @Override
  public long currentProcessingTime() {
    return timers.currentProcessingTime();
  }

  @Override
  public long currentWatermark() {
    return timers.currentWatermark();
  }

  @Override
  public void advanceWatermark(long watermark) throws Exception {
    timers.advanceWatermark(watermark);
  }

  @Override
  public void beforeSnapshot() {
    // The states are the timers.
  }

  @Override
  public void close() {
    timers.close();
  }

  @Override
  public void onEventTime(K key, long time) throws Exception {
    fire(key, time, true);
  }

  @Override
  public void onProcessingTime(K key, long time) throws Exception {
    fire(key, time, false);
  }

  private void fire(K key, long time, boolean eventTime) throws Exception {
    MapState<Long, List<W>> state = eventTime ? eventTimers : processingTimers;
    List<W> windows = state.get(time);
    if (windows == null) {
      return;
    }
    state.remove(time);
    forget(key, time, windows, eventTime);
    for (W window : windows) {
      target.onTimer(key, time, window, eventTime);
    }
  }

  private void forget(K key, long time, List<W> windows, boolean eventTime) {
    forgetRecent();
    for (W window : windows) {
      knownTimers.remove(new KnownTimer<>(key, time, window, eventTime));
    }
  }

  @Override
  public void register(long time, W window, boolean eventTime) throws Exception {
    K key = backend.getCurrentKey();
    for (KnownTimer<K, W> recent : recentTimers) {
      if (recent != null && recent.matches(key, time, window, eventTime)) {
        return;
      }
    }
    KnownTimer<K, W> known = new KnownTimer<>(key, time, window, eventTime);
    if (knownTimers.contains(known)) {
      remember(known);
      return;
    }
    if (knownTimers.size() >= MAX_KNOWN_TIMERS) {
      knownTimers.clear();
    }
    MapState<Long, List<W>> state = eventTime ? eventTimers : processingTimers;
    List<W> windows = state.get(time);
    if (windows != null && windows.contains(window)) {
      knownTimers.add(known);
      remember(known);
      return;
    }
    List<W> updated = windows == null ? new ArrayList<>(1) : new ArrayList<>(windows);
    updated.add(window);
    state.put(time, updated);
    knownTimers.add(known);
    remember(known);
    if (eventTime) {
      timers.registerEventTimeTimer(time);
    } else {
      timers.registerProcessingTimeTimer(time);
    }
  }

  private void remember(KnownTimer<K, W> known) {
    recentTimers[nextRecent] = known;
    nextRecent = (nextRecent + 1) % RECENT_TIMERS;
  }

  private void forgetRecent() {
    Arrays.fill(recentTimers, null);
  }

  @Override
  public void delete(long time, W window, boolean eventTime) throws Exception {
    MapState<Long, List<W>> state = eventTime ? eventTimers : processingTimers;
    List<W> windows = state.get(time);
    if (windows == null || !windows.contains(window)) {
      return; // nor known then: only what the state holds is (a fired window's trigger clears)
    }
    forgetRecent();
    knownTimers.remove(new KnownTimer<>(backend.getCurrentKey(), time, window, eventTime));
    if (windows.size() == 1) {
      state.remove(time);
      if (eventTime) {
        timers.deleteEventTimeTimer(time);
      } else {
        timers.deleteProcessingTimeTimer(time);
      }
    } else {
      List<W> updated = new ArrayList<>(windows);
      updated.remove(window);
      state.put(time, updated);
    }
  }
}
