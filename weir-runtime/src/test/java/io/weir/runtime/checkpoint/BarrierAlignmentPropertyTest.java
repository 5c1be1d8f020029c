package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.BarrierHandler.State;
import io.weir.runtime.network.ChannelEvent.CancelCheckpointMarker;
import io.weir.runtime.network.ChannelEvent.CheckpointBarrier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Barrier alignment yields a consistent cut: a task with 2–4 input channels, each carrying records
 * with barrier n (and on some channels barrier n+1) at random positions, read in an order a seeded
 * random scheduler picks. The scheduler models the input gate: it never reads a channel the handler
 * blocked. The operator state is the set of records processed (every record is unique, so the set
 * is the multiset). When the handler triggers checkpoint k the state is recorded and compared with
 * the cut of k: on every channel, the records before its marker for k (all of them if it has none).
 *
 * <p>Seeds are fixed, so every run checks the same interleavings.
 */
class BarrierAlignmentPropertyTest {

  /** The first checkpoint in every scenario; the second, where present, is N + 1. */
  static final long N = 7;

  /** One element of a channel's stream, written as in a counterexample: r103, |7, x7. */
  sealed interface Element permits Rec, Bar, Cancel {}

  record Rec(int id) implements Element {
    @Override
    public String toString() {
      return "r" + id;
    }
  }

  record Bar(long checkpointId) implements Element {
    @Override
    public String toString() {
      return "|" + checkpointId;
    }
  }

  record Cancel(long checkpointId) implements Element {
    @Override
    public String toString() {
      return "x" + checkpointId;
    }
  }

  /**
   * The shape of one channel.
   *
   * @param records how many records
   * @param first position of the marker for N (clamped to the records)
   * @param gap records between the marker for N and barrier N + 1
   * @param second whether the channel carries barrier N + 1
   * @param cancelFirst whether the marker for N is a cancel marker instead of a barrier
   */
  record Layout(int records, int first, int gap, boolean second, boolean cancelFirst) {}

  /**
   * @param channels what each channel delivers; the end of a list closes the channel
   * @param choices the scheduler's picks (modulo the readable channels); 0 once used up
   */
  record Scenario(List<List<Element>> channels, List<Integer> choices) {}

  @Provide
  Arbitrary<Scenario> barriersOnly() {
    return scenarios(false);
  }

  @Provide
  Arbitrary<Scenario> withCancelMarkers() {
    return scenarios(true);
  }

  private static Arbitrary<Scenario> scenarios(boolean cancels) {
    Arbitrary<Boolean> cancelFirst =
        cancels ? Arbitraries.integers().between(0, 3).map(i -> i == 0) : Arbitraries.just(false);
    Arbitrary<Layout> layout =
        Combinators.combine(
                Arbitraries.integers().between(0, 5),
                Arbitraries.integers().between(0, 5),
                Arbitraries.integers().between(0, 3),
                Arbitraries.of(false, true),
                cancelFirst)
            .as(Layout::new);
    Arbitrary<List<Layout>> layouts = layout.list().ofMinSize(2).ofMaxSize(4);
    Arbitrary<List<Integer>> choices = Arbitraries.integers().between(0, 99).list().ofMaxSize(60);
    return Combinators.combine(layouts, choices).as((ls, cs) -> new Scenario(channels(ls), cs));
  }

  private static List<List<Element>> channels(List<Layout> layouts) {
    List<List<Element>> channels = new ArrayList<>();
    for (int c = 0; c < layouts.size(); c++) {
      Layout l = layouts.get(c);
      int first = Math.min(l.first(), l.records());
      int second = Math.min(first + l.gap(), l.records());
      List<Element> elements = new ArrayList<>();
      for (int i = 0; i <= l.records(); i++) {
        if (i == first) {
          elements.add(l.cancelFirst() ? new Cancel(N) : new Bar(N));
        }
        if (l.second() && i == second) {
          elements.add(new Bar(N + 1));
        }
        if (i < l.records()) {
          elements.add(new Rec(100 * (c + 1) + i));
        }
      }
      channels.add(List.copyOf(elements));
    }
    return channels;
  }

  // ---------------------------------------------------------------------------------------------

  @Property(tries = 2000, seed = "4711")
  void exactlyOnceSnapshotsAreConsistentCuts(@ForAll("barriersOnly") Scenario scenario)
      throws Exception {
    Run run = new Run(scenario, true);
    run.play(scenario.choices(), false);

    Set<Long> expected = new TreeSet<>(List.of(N));
    if (run.carries(new Bar(N + 1))) {
      expected.add(N + 1);
    }
    assertThat(run.snapshots.keySet()).as("checkpoints taken").isEqualTo(expected);
    for (Map.Entry<Long, Set<Integer>> s : run.snapshots.entrySet()) {
      assertThat(s.getValue())
          .as("snapshot of checkpoint %d is the cut; %s", s.getKey(), run.trace)
          .isEqualTo(run.cut(s.getKey()));
    }
    assertThat(run.actions.aborted).isEmpty();
    run.assertReleased();
  }

  @Property(tries = 2000, seed = "4712")
  void atLeastOnceSnapshotsContainTheCutAndNeverBlock(@ForAll("barriersOnly") Scenario scenario)
      throws Exception {
    Run run = new Run(scenario, false);
    run.play(scenario.choices(), false);

    assertThat(run.actions.everBlocked).as("at-least-once blocks no channel").isFalse();
    boolean overcounted = false;
    for (Map.Entry<Long, Set<Integer>> s : run.snapshots.entrySet()) {
      Set<Integer> cut = run.cut(s.getKey());
      assertThat(s.getValue())
          .as("snapshot of checkpoint %d contains the cut; %s", s.getKey(), run.trace)
          .containsAll(cut);
      overcounted |= s.getValue().size() > cut.size();
    }
    if (run.carries(new Bar(N + 1))) {
      assertThat(run.snapshots).containsKey(N + 1);
    }
    // Checkpoint N is taken unless barrier N+1 overtook it (see BarrierHandlerTest).
    assertThat(run.snapshots.containsKey(N) || run.actions.aborted.contains(N)).isTrue();
    run.assertReleased();
    Statistics.label("snapshot holds records after the barrier").collect(overcounted);
    Statistics.label("snapshot holds records after the barrier")
        .coverage(checker -> checker.check(true).count(c -> c > 0));
  }

  /**
   * With cancel markers in place of some barriers N, and the task aborting N or N+1 at random times
   * (as {@code InputStreamTask.notifyCheckpointAborted} does), every snapshot is still a consistent
   * cut, a cancelled checkpoint is never taken, an aborted one is never taken afterwards, and no
   * channel stays blocked.
   */
  @Property(tries = 3000, seed = "4713")
  void exactlyOnceStaysConsistentUnderCancelsAndAborts(
      @ForAll("withCancelMarkers") Scenario scenario) throws Exception {
    Run run = new Run(scenario, true);
    run.play(scenario.choices(), true);

    for (Map.Entry<Long, Set<Integer>> s : run.snapshots.entrySet()) {
      assertThat(s.getValue())
          .as("snapshot of checkpoint %d is the cut; %s", s.getKey(), run.trace)
          .isEqualTo(run.cut(s.getKey()));
    }
    run.assertCancelledNeverTaken();
    run.assertReleased();
  }

  @Property(tries = 3000, seed = "4714")
  void atLeastOnceStaysSafeUnderCancelsAndAborts(@ForAll("withCancelMarkers") Scenario scenario)
      throws Exception {
    Run run = new Run(scenario, false);
    run.play(scenario.choices(), true);

    assertThat(run.actions.everBlocked).isFalse();
    for (Map.Entry<Long, Set<Integer>> s : run.snapshots.entrySet()) {
      assertThat(s.getValue()).containsAll(run.cut(s.getKey()));
    }
    run.assertCancelledNeverTaken();
    run.assertReleased();
  }

  // ---------------------------------------------------------------------------------------------

  /** One task fed by the scenario's channels in the scheduler's order. */
  private static final class Run {
    final List<List<Element>> channels;
    final RecordingBarrierActions actions = new RecordingBarrierActions();
    final BarrierHandler handler;
    final int[] next;
    final boolean[] closed;
    final Set<Integer> processed = new TreeSet<>();
    final Map<Long, Set<Integer>> snapshots = new TreeMap<>();
    final Set<Long> abortedByTask = new HashSet<>();
    final List<String> trace = new ArrayList<>();

    Run(Scenario scenario, boolean exactlyOnce) {
      this.channels = scenario.channels();
      this.next = new int[channels.size()];
      this.closed = new boolean[channels.size()];
      this.handler = new BarrierHandler(channels.size(), exactlyOnce, actions);
      actions.onTrigger =
          barrier -> {
            long id = barrier.checkpointId();
            assertThat(snapshots)
                .as("checkpoint %d taken twice; %s", id, trace)
                .doesNotContainKey(id);
            assertThat(abortedByTask)
                .as("checkpoint %d taken after the task aborted it; %s", id, trace)
                .doesNotContain(id);
            snapshots.put(id, new TreeSet<>(processed));
          };
    }

    void play(List<Integer> choices, boolean taskAborts) throws Exception {
      Iterator<Integer> picks = choices.iterator();
      while (true) {
        int pick = picks.hasNext() ? picks.next() : 0;
        if (taskAborts && pick >= 88) {
          long id = pick % 2 == 0 ? N : N + 1;
          trace.add("task aborts " + id);
          abortedByTask.add(id);
          handler.abort(id);
          continue;
        }
        List<Integer> readable = new ArrayList<>();
        for (int c = 0; c < channels.size(); c++) {
          if (!closed[c] && !actions.blocked.contains(c)) {
            readable.add(c);
          }
        }
        if (readable.isEmpty()) {
          for (int c = 0; c < channels.size(); c++) {
            assertThat(closed[c])
                .as("deadlock: channel %d is blocked and nothing else is readable; %s", c, trace)
                .isTrue();
          }
          return;
        }
        deliver(readable.get(pick % readable.size()));
      }
    }

    private void deliver(int channel) throws Exception {
      List<Element> elements = channels.get(channel);
      if (next[channel] == elements.size()) {
        trace.add(channel + ": end");
        closed[channel] = true;
        handler.onChannelClosed(channel);
        return;
      }
      Element e = elements.get(next[channel]++);
      trace.add(channel + ": " + e);
      if (e instanceof Rec r) {
        processed.add(r.id());
      } else if (e instanceof Bar b) {
        handler.onBarrier(channel, new CheckpointBarrier(b.checkpointId(), 0, false));
      } else if (e instanceof Cancel x) {
        handler.onCancel(channel, new CancelCheckpointMarker(x.checkpointId()));
      }
    }

    boolean carries(Element marker) {
      return channels.stream().anyMatch(c -> c.contains(marker));
    }

    /** The records before each channel's marker for {@code checkpointId}, or all of them. */
    Set<Integer> cut(long checkpointId) {
      Set<Integer> cut = new TreeSet<>();
      for (List<Element> channel : channels) {
        for (Element e : channel) {
          if (e.equals(new Bar(checkpointId)) || e.equals(new Cancel(checkpointId))) {
            break;
          }
          if (e instanceof Rec r) {
            cut.add(r.id());
          }
        }
      }
      return cut;
    }

    void assertCancelledNeverTaken() {
      for (long id : List.of(N, N + 1)) {
        if (carries(new Cancel(id))) {
          assertThat(snapshots)
              .as("checkpoint %d was cancelled upstream; %s", id, trace)
              .doesNotContainKey(id);
        }
      }
    }

    void assertReleased() {
      assertThat(actions.blocked).as("blocked at the end; %s", trace).isEmpty();
      assertThat(handler.state()).isEqualTo(State.IDLE);
    }
  }
}
