package io.weir.runtime.operators.windowing;

import io.weir.api.functions.AggregateFunction;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.evictors.TimestampedValue;
import io.weir.api.windowing.windows.Window;
import io.weir.runtime.state.ComputableMapState;
import io.weir.runtime.state.KeyedStateBackend;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Where the windows of the current key keep what they hold, in the keyed state backend (so in every
 * checkpoint, on every backend). Task thread only.
 */
abstract sealed class WindowContents<IN, W extends Window> {

  /**
   * Adds an element to {@code window}.
   *
   * @return whether {@code window} held something before
   */
  abstract boolean add(W window, IN value, long timestamp) throws Exception;

  /** True when {@code window} holds something. */
  abstract boolean has(W window) throws Exception;

  /** Drops what {@code window} holds. */
  abstract void clear(W window) throws Exception;

  /** Moves what {@code sources} hold into {@code target}. */
  abstract void merge(W target, Collection<W> sources) throws Exception;

  /**
   * {@code aggregate} and {@code reduce} without evictor: one accumulator per key and window in a
   * keyed map state {@code _window_contents} (window to accumulator); an element is one read and
   * one write of that entry, never a list, and on the heap one lookup ({@link ComputableMapState}).
   */
  static final class Accumulating<IN, ACC, W extends Window> extends WindowContents<IN, W> {
    private final MapState<W, ACC> state;
    private final AggregateFunction<IN, ACC, ?> aggregate;
    private final Adder adder = new Adder();
    private final Taker taker = new Taker();

    Accumulating(
        KeyedStateBackend<?> backend,
        TypeSerializer<W> windowSerializer,
        TypeSerializer<ACC> accumulatorSerializer,
        AggregateFunction<IN, ACC, ?> aggregate) {
      this.state =
          backend.getMapState(
              new MapStateDescriptor<>(
                  "_window_contents", windowSerializer, accumulatorSerializer));
      this.aggregate = aggregate;
    }

    @Override
    boolean add(W window, IN value, long timestamp) throws Exception {
      if (state instanceof ComputableMapState<W, ACC> computable) {
        adder.value = value;
        computable.compute(window, adder);
        adder.value = null;
        return adder.held;
      }
      ACC acc = state.get(window);
      state.put(window, aggregate.add(value, acc == null ? aggregate.createAccumulator() : acc));
      return acc != null;
    }

    /** Removes an entry, keeping its accumulator. */
    private final class Taker implements BiFunction<W, ACC, ACC> {
      ACC taken;

      @Override
      public ACC apply(W window, ACC acc) {
        taken = acc;
        return null;
      }
    }

    /** Adds {@link #value} to an entry's accumulator and notes whether there was one. */
    private final class Adder implements BiFunction<W, ACC, ACC> {
      IN value;
      boolean held;

      @Override
      public ACC apply(W window, ACC acc) {
        held = acc != null;
        return aggregate.add(value, held ? acc : aggregate.createAccumulator());
      }
    }

    /** The accumulator of {@code window}, or null when it holds nothing. */
    ACC get(W window) throws Exception {
      return state.get(window);
    }

    /** Removes the accumulator of {@code window} and returns it (null when it held nothing). */
    ACC take(W window) throws Exception {
      if (state instanceof ComputableMapState<W, ACC> computable) {
        taker.taken = null;
        computable.compute(window, taker);
        ACC taken = taker.taken;
        taker.taken = null;
        return taken;
      }
      ACC acc = state.get(window);
      if (acc != null) {
        state.remove(window);
      }
      return acc;
    }

    @Override
    boolean has(W window) throws Exception {
      return state.contains(window);
    }

    @Override
    void clear(W window) throws Exception {
      state.remove(window);
    }

    @Override
    void merge(W target, Collection<W> sources) throws Exception {
      ACC merged = state.get(target);
      for (W source : sources) {
        if (source.equals(target)) {
          continue;
        }
        ACC acc = state.get(source);
        if (acc != null) {
          merged = merged == null ? acc : aggregate.merge(merged, acc);
          state.remove(source);
        }
      }
      if (merged != null) {
        state.put(target, merged);
      }
    }
  }

  /**
   * {@code process} and windows with an evictor: every element with its timestamp. Each element is
   * its own entry of a keyed map state {@code _window_elements} keyed by (window, position), and
   * {@code _window_sizes} holds each window's count; adding an element writes one entry (never a
   * whole list again), reading a window is one lookup per element, in arrival order.
   */
  static final class Listing<IN, W extends Window> extends WindowContents<IN, W> {
    private final MapState<Tuple2<W, Long>, Tuple2<IN, Long>> elements;
    private final MapState<W, Long> sizes;

    Listing(
        KeyedStateBackend<?> backend,
        TypeInformation<W> windowType,
        TypeInformation<IN> elementType) {
      TypeInformation<Tuple2<W, Long>> keyType = Types.TUPLE(windowType, Types.LONG);
      TypeInformation<Tuple2<IN, Long>> valueType = Types.TUPLE(elementType, Types.LONG);
      this.elements =
          backend.getMapState(new MapStateDescriptor<>("_window_elements", keyType, valueType));
      this.sizes =
          backend.getMapState(
              new MapStateDescriptor<>(
                  "_window_sizes", windowType.createSerializer(), Types.LONG.createSerializer()));
    }

    @Override
    boolean add(W window, IN value, long timestamp) throws Exception {
      Long size = sizes.get(window);
      long n = size == null ? 0 : size;
      elements.put(Tuple2.of(window, n), Tuple2.of(value, timestamp));
      sizes.put(window, n + 1);
      return size != null;
    }

    /** The elements of {@code window} in arrival order (empty when it holds nothing). */
    List<TimestampedValue<IN>> get(W window) throws Exception {
      Long size = sizes.get(window);
      if (size == null) {
        return new ArrayList<>(0);
      }
      List<TimestampedValue<IN>> out = new ArrayList<>((int) (long) size);
      for (long i = 0; i < size; i++) {
        Tuple2<IN, Long> e = elements.get(Tuple2.of(window, i));
        if (e == null) {
          throw new IllegalStateException(
              "Element " + i + " of window " + window + " is missing from the window state");
        }
        out.add(new TimestampedValue<>(e.f0, e.f1));
      }
      return out;
    }

    /** Replaces what {@code window} holds (after an evictor removed elements). */
    void replace(W window, List<TimestampedValue<IN>> values) throws Exception {
      clear(window);
      for (TimestampedValue<IN> v : values) {
        add(window, v.getValue(), v.getTimestamp());
      }
    }

    @Override
    boolean has(W window) throws Exception {
      return sizes.contains(window);
    }

    @Override
    void clear(W window) throws Exception {
      Long size = sizes.get(window);
      if (size == null) {
        return;
      }
      for (long i = 0; i < size; i++) {
        elements.remove(Tuple2.of(window, i));
      }
      sizes.remove(window);
    }

    @Override
    void merge(W target, Collection<W> sources) throws Exception {
      for (W source : sources) {
        if (source.equals(target)) {
          continue;
        }
        for (TimestampedValue<IN> v : get(source)) {
          add(target, v.getValue(), v.getTimestamp());
        }
        clear(source);
      }
    }
  }
}
