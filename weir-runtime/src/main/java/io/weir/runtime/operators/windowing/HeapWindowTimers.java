package io.weir.runtime.operators.windowing;

import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.Types;
import io.weir.runtime.state.HeapKeyedStateBackend;
import io.weir.runtime.time.InternalTimerService;
import io.weir.runtime.time.ProcessingTimeService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Window timers on the heap backend, as Flink keeps them ({@code HeapPriorityQueueSet} with the
 * window as the timer's namespace): per time domain one hash set of (key, window, timestamp) and a
 * heap over the same timers. Registering a timer is one probe of the set, firing one is a poll of
 * the heap and one removal from the set; the keyed-state way ({@link StateWindowTimers}) took about
 * ten hash operations per timer (window lists, a cache of the known timers, the timer service's
 * set, heap and mirror state), which profiles of Nexmark q5 showed as most of the window task.
 *
 * <p>The keyed states a checkpoint holds ({@value #EVENT_WINDOWS}, {@value #PROCESSING_WINDOWS} and
 * the timer service's {@code _timers_event}, {@code _timers_processing}) are written from the heaps
 * only in {@link #beforeSnapshot}, in the layout {@link StateWindowTimers} keeps them in, so that
 * checkpoints and savepoints are the same whichever wrote them; between checkpoints those states
 * are stale and nothing reads them. A restore reads the window states back into the heaps. Task
 * thread only.
 */
final class HeapWindowTimers<K, W> implements WindowTimers<K, W> {

  private final HeapKeyedStateBackend<K> backend;
  private final ProcessingTimeService timeService;
  private final Target<K, W> target;

  private final Domain<K, W> eventTimers = new Domain<>();
  private final Domain<K, W> processingTimers = new Domain<>();

  // What checkpoints hold, written in beforeSnapshot.
  private final MapState<Long, List<W>> eventWindowsState;
  private final MapState<Long, List<W>> processingWindowsState;
  private final MapState<Long, Boolean> eventTimersState;
  private final MapState<Long, Boolean> processingTimersState;

  /** Keys that have entries in the states above: cleared before they are written again. */
  private Set<K> keysInState = new LinkedHashSet<>();

  private long sequence;
  private long currentWatermark = Long.MIN_VALUE;
  private ProcessingTimeService.Cancellable nextPhysical;
  private long nextPhysicalTime = Long.MAX_VALUE;

  @SuppressWarnings("unchecked")
  HeapWindowTimers(
      HeapKeyedStateBackend<K> backend,
      ProcessingTimeService timeService,
      TypeSerializer<List<W>> windowList,
      Target<K, W> target) {
    this.backend = backend;
    this.timeService = timeService;
    this.target = target;
    this.eventWindowsState =
        backend.getMapState(
            new MapStateDescriptor<>(EVENT_WINDOWS, Types.LONG.createSerializer(), windowList));
    this.processingWindowsState =
        backend.getMapState(
            new MapStateDescriptor<>(
                PROCESSING_WINDOWS, Types.LONG.createSerializer(), windowList.duplicate()));
    this.eventTimersState =
        backend.getMapState(
            new MapStateDescriptor<>(InternalTimerService.EVENT_TIMERS, Types.LONG, Types.BOOLEAN));
    this.processingTimersState =
        backend.getMapState(
            new MapStateDescriptor<>(
                InternalTimerService.PROCESSING_TIMERS, Types.LONG, Types.BOOLEAN));
    // A window list without its timer service entry never fired before either: read the lists.
    restore(EVENT_WINDOWS, eventTimers);
    restore(PROCESSING_WINDOWS, processingTimers);
    for (String name :
        List.of(InternalTimerService.EVENT_TIMERS, InternalTimerService.PROCESSING_TIMERS)) {
      backend.forEachEntry(name, (key, value) -> keysInState.add(key));
    }
    long first = processingTimers.peekTimestamp();
    if (first != Long.MAX_VALUE) {
      schedule(first);
    }
  }

  @SuppressWarnings("unchecked")
  private void restore(String stateName, Domain<K, W> domain) {
    backend.forEachEntry(
        stateName,
        (key, value) -> {
          keysInState.add(key);
          for (Map.Entry<Long, List<W>> entry : ((Map<Long, List<W>>) value).entrySet()) {
            for (W window : entry.getValue()) {
              domain.add(new Timer<>(key, entry.getKey(), window, sequence++));
            }
          }
        });
  }

  /**
   * A window's timer: its key, window (the timer's namespace) and time, and where it is in its
   * domain's heap. Equal by key, window and time; ordered by time, then by registration.
   */
  static final class Timer<K, W> {
    final K key;
    final long time;
    final W window;
    final long sequence;
    private final int hash;
    int index = -1; // in the heap; -1 when not in it

    Timer(K key, long time, W window, long sequence) {
      this.key = key;
      this.time = time;
      this.window = window;
      this.sequence = sequence;
      int h = 31 * Objects.hashCode(key) + window.hashCode();
      this.hash = 31 * h + Long.hashCode(time);
    }

    boolean matches(K key, long time, W window) {
      return this.time == time && window.equals(this.window) && Objects.equals(key, this.key);
    }

    boolean before(Timer<?, ?> other) {
      return time < other.time || (time == other.time && sequence < other.sequence);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Timer<?, ?> other
          && hash == other.hash
          && time == other.time
          && window.equals(other.window)
          && Objects.equals(key, other.key);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /** The timers of one time domain: a set to find them, a binary heap to order them. */
  static final class Domain<K, W> {
    private final HashMap<Timer<K, W>, Timer<K, W>> set = new HashMap<>();

    @SuppressWarnings("unchecked")
    private Timer<K, W>[] heap = new Timer[64];

    private int size;

    /**
     * The timer added or found last: a trigger's timer and the cleanup timer of the same window are
     * registered one after the other and are the same timer without allowed lateness, so the second
     * needs no probe of the set. Still in the domain while its index is not -1.
     */
    Timer<K, W> lastAdded;

    /** Adds the timer unless an equal one is there; true if it was added. */
    boolean add(Timer<K, W> timer) {
      Timer<K, W> present = set.putIfAbsent(timer, timer);
      if (present != null) {
        lastAdded = present;
        return false;
      }
      if (size == heap.length) {
        heap = Arrays.copyOf(heap, size * 2);
      }
      timer.index = size;
      heap[size++] = timer;
      siftUp(timer.index);
      lastAdded = timer;
      return true;
    }

    /** Removes the timer equal to {@code probe}; false if there was none. */
    boolean remove(Timer<K, W> probe) {
      Timer<K, W> timer = set.remove(probe);
      if (timer == null) {
        return false;
      }
      removeAt(timer.index);
      return true;
    }

    long peekTimestamp() {
      return size == 0 ? Long.MAX_VALUE : heap[0].time;
    }

    /** Removes and returns the earliest timer; the domain must not be empty. */
    Timer<K, W> poll() {
      Timer<K, W> head = heap[0];
      set.remove(head);
      removeAt(0);
      return head;
    }

    int size() {
      return size;
    }

    Timer<K, W> get(int i) {
      return heap[i];
    }

    private void removeAt(int i) {
      Timer<K, W> removed = heap[i];
      removed.index = -1;
      size--;
      if (i == size) {
        heap[size] = null;
        return;
      }
      Timer<K, W> last = heap[size];
      heap[size] = null;
      heap[i] = last;
      last.index = i;
      siftDown(i);
      if (heap[i] == last) {
        siftUp(i);
      }
    }

    private void siftUp(int i) {
      Timer<K, W> timer = heap[i];
      while (i > 0) {
        int parent = (i - 1) >>> 1;
        Timer<K, W> p = heap[parent];
        if (!timer.before(p)) {
          break;
        }
        heap[i] = p;
        p.index = i;
        i = parent;
      }
      heap[i] = timer;
      timer.index = i;
    }

    private void siftDown(int i) {
      Timer<K, W> timer = heap[i];
      int half = size >>> 1;
      while (i < half) {
        int child = 2 * i + 1;
        Timer<K, W> c = heap[child];
        int right = child + 1;
        if (right < size && heap[right].before(c)) {
          child = right;
          c = heap[child];
        }
        if (!c.before(timer)) {
          break;
        }
        heap[i] = c;
        c.index = i;
        i = child;
      }
      heap[i] = timer;
      timer.index = i;
    }
  }

  @Override
  public long currentProcessingTime() {
    return timeService.getCurrentProcessingTime();
  }

  @Override
  public long currentWatermark() {
    return currentWatermark;
  }

  @Override
  public void register(long time, W window, boolean eventTime) {
    K key = backend.getCurrentKey();
    Domain<K, W> domain = eventTime ? eventTimers : processingTimers;
    Timer<K, W> last = domain.lastAdded;
    if (last != null && last.index >= 0 && last.matches(key, time, window)) {
      return;
    }
    if (domain.add(new Timer<>(key, time, window, sequence++))
        && !eventTime
        && time < nextPhysicalTime) {
      schedule(time);
    }
  }

  @Override
  public void delete(long time, W window, boolean eventTime) {
    Domain<K, W> domain = eventTime ? eventTimers : processingTimers;
    domain.remove(new Timer<>(backend.getCurrentKey(), time, window, 0));
  }

  @Override
  public void advanceWatermark(long watermark) throws Exception {
    currentWatermark = watermark;
    while (eventTimers.size() > 0 && eventTimers.peekTimestamp() <= watermark) {
      fire(eventTimers.poll(), true);
    }
  }

  private void fire(Timer<K, W> timer, boolean eventTime) throws Exception {
    backend.setCurrentKey(timer.key);
    target.onTimer(timer.key, timer.time, timer.window, eventTime);
  }

  private void schedule(long time) {
    if (nextPhysical != null) {
      nextPhysical.cancel();
    }
    nextPhysicalTime = time;
    nextPhysical = timeService.registerTimer(time, this::onProcessingTime);
  }

  private void onProcessingTime(long now) throws Exception {
    nextPhysical = null;
    nextPhysicalTime = Long.MAX_VALUE;
    while (processingTimers.size() > 0 && processingTimers.peekTimestamp() <= now) {
      fire(processingTimers.poll(), false);
    }
    long next = processingTimers.peekTimestamp();
    if (next != Long.MAX_VALUE) {
      schedule(next);
    }
  }

  @Override
  public void close() {
    if (nextPhysical != null) {
      nextPhysical.cancel();
      nextPhysical = null;
    }
  }

  /**
   * Writes every timer into the states, as {@link StateWindowTimers} keeps them: per key, each
   * timestamp's windows and the timer service's entry. The keys written last time are cleared
   * first. The current key is set back after.
   */
  @Override
  public void beforeSnapshot() throws Exception {
    K current = backend.getCurrentKey();
    for (K key : keysInState) {
      backend.setCurrentKey(key);
      eventWindowsState.clear();
      processingWindowsState.clear();
      eventTimersState.clear();
      processingTimersState.clear();
    }
    Set<K> written = new LinkedHashSet<>();
    write(eventTimers, eventWindowsState, eventTimersState, written);
    write(processingTimers, processingWindowsState, processingTimersState, written);
    keysInState = written;
    if (current != null) {
      backend.setCurrentKey(current);
    }
  }

  private void write(
      Domain<K, W> domain,
      MapState<Long, List<W>> windowsState,
      MapState<Long, Boolean> timersState,
      Set<K> written)
      throws Exception {
    Map<K, Map<Long, List<W>>> byKey = new LinkedHashMap<>();
    for (int i = 0; i < domain.size(); i++) {
      Timer<K, W> timer = domain.get(i);
      byKey
          .computeIfAbsent(timer.key, k -> new HashMap<>())
          .computeIfAbsent(timer.time, t -> new ArrayList<>(1))
          .add(timer.window);
    }
    for (Map.Entry<K, Map<Long, List<W>>> entry : byKey.entrySet()) {
      backend.setCurrentKey(entry.getKey());
      written.add(entry.getKey());
      for (Map.Entry<Long, List<W>> times : entry.getValue().entrySet()) {
        windowsState.put(times.getKey(), times.getValue());
        timersState.put(times.getKey(), Boolean.TRUE);
      }
    }
  }
}
