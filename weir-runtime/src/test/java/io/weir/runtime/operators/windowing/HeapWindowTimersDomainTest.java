package io.weir.runtime.operators.windowing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The heap window timers' set and heap against a sorted set: adds of timers already there, removes
 * from anywhere in the heap and polls in any mix give the timers in time order, and among equal
 * times in the order they were first added.
 */
class HeapWindowTimersDomainTest {

  private static final Comparator<HeapWindowTimers.Timer<Integer, String>> ORDER =
      Comparator.<HeapWindowTimers.Timer<Integer, String>>comparingLong(t -> t.time)
          .thenComparingLong(t -> t.sequence);

  @Property(tries = 200)
  void pollsInTimeThenRegistrationOrder(@ForAll long seed) {
    Random random = new Random(seed);
    HeapWindowTimers.Domain<Integer, String> domain = new HeapWindowTimers.Domain<>();
    TreeSet<HeapWindowTimers.Timer<Integer, String>> reference = new TreeSet<>(ORDER);
    long sequence = 0;
    List<Long> polled = new ArrayList<>();
    List<Long> expected = new ArrayList<>();
    for (int step = 0; step < 500; step++) {
      int key = random.nextInt(5);
      long time = random.nextInt(20);
      String window = "w" + random.nextInt(3);
      int op = random.nextInt(10);
      if (op < 6) {
        HeapWindowTimers.Timer<Integer, String> timer =
            new HeapWindowTimers.Timer<>(key, time, window, sequence++);
        boolean isNew = reference.stream().noneMatch(t -> t.equals(timer));
        assertThat(domain.add(timer)).as("added only if new").isEqualTo(isNew);
        if (isNew) {
          reference.add(timer);
        }
        assertThat(domain.lastAdded).isEqualTo(timer);
      } else if (op < 8) {
        HeapWindowTimers.Timer<Integer, String> probe =
            new HeapWindowTimers.Timer<>(key, time, window, -1);
        boolean present = reference.removeIf(t -> t.equals(probe));
        assertThat(domain.remove(probe)).as("removed only if there").isEqualTo(present);
      } else if (domain.size() > 0) {
        HeapWindowTimers.Timer<Integer, String> head = reference.pollFirst();
        assertThat(domain.peekTimestamp()).isEqualTo(head.time);
        HeapWindowTimers.Timer<Integer, String> timer = domain.poll();
        assertThat(timer).isSameAs(head);
        assertThat(timer.index).as("out of the heap").isEqualTo(-1);
      }
      assertThat(domain.size()).isEqualTo(reference.size());
    }
    while (domain.size() > 0) {
      polled.add(domain.poll().sequence);
    }
    for (HeapWindowTimers.Timer<Integer, String> t : reference) {
      expected.add(t.sequence);
    }
    assertThat(polled).isEqualTo(expected);
    assertThat(domain.peekTimestamp()).isEqualTo(Long.MAX_VALUE);
  }
}
