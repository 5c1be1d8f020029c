package io.weir.runtime.checkpoint;

import io.weir.runtime.checkpoint.TaskRestore.AssignedList;
import io.weir.runtime.checkpoint.TaskRestore.AssignedSplits;
import io.weir.runtime.checkpoint.TaskRestore.OperatorRestore;
import io.weir.runtime.graph.JobEdge;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamNode;
import io.weir.runtime.state.DefaultOperatorStateStore.Mode;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.StreamStateHandle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides which subtask of a vertex restores which state of a checkpoint, from the checkpoint's
 * metadata alone: keyed state by key group (each subtask gets the handles whose key groups overlap
 * its range), operator list state split round robin or, for union lists, to every subtask, a
 * source's splits ({@link OperatorSubtaskState#splits()}) round robin, and the in-flight data of an
 * unaligned checkpoint ({@link OperatorSubtaskState#channelState()}) to the subtask that recorded
 * it. It produces handles, never bytes: each task reads its own share.
 */
public final class StateAssignment {

  private StateAssignment() {}

  /**
   * Every subtask's share of {@code checkpoint} for {@code vertex}, by subtask index.
   *
   * @param freshSplits for a source vertex started without state of its own in the checkpoint: per
   *     subtask, the splits to read (serialized); ignored otherwise
   * @throws IllegalStateException when the checkpoint's in-flight data cannot be split over the
   *     vertex's parallelism
   */
  public static List<TaskRestore> assign(
      JobVertex vertex,
      int maxParallelism,
      CompletedCheckpoint checkpoint,
      CheckpointStateReader storage,
      boolean claimed,
      List<AssignedSplits> freshSplits) {
    int parallelism = vertex.getParallelism();
    List<Map<String, OperatorRestore>> operators = new ArrayList<>();
    List<AssignedSplits> splits = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      operators.add(new LinkedHashMap<>());
      splits.add(vertex.isSource() ? freshSplits.get(i) : AssignedSplits.NONE);
    }
    StreamNode head = vertex.getHead();
    OperatorState headState = checkpoint.operator(head.getOperatorId());
    if (headState != null) {
      checkChannelStateParallelism(checkpoint, vertex, headState);
      if (head.isSource()) {
        splits = redistributeSplits(headState, parallelism);
      }
    }
    for (StreamNode node : vertex.getChain()) {
      OperatorState op = checkpoint.operator(node.getOperatorId());
      if (op == null || node.isSource()) {
        continue;
      }
      List<Map<String, AssignedList>> lists = redistribute(oldLists(op), parallelism);
      for (int i = 0; i < parallelism; i++) {
        operators
            .get(i)
            .put(
                node.getOperatorId(),
                new OperatorRestore(
                    keyedOverlapping(
                        op, KeyGroupsStateHandle.class, maxParallelism, parallelism, i),
                    keyedOverlapping(
                        op, IncrementalKeyedStateHandle.class, maxParallelism, parallelism, i),
                    lists.get(i)));
      }
    }
    List<TaskRestore> result = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      // Same parallelism (checked above): subtask i replays what subtask i recorded.
      OperatorSubtaskState own =
          headState == null || i >= headState.subtasks().size()
              ? OperatorSubtaskState.EMPTY
              : headState.subtasks().get(i);
      result.add(
          new TaskRestore(
              checkpoint.checkpointId(),
              storage,
              claimed,
              operators.get(i),
              own.inputChannelState(),
              own.resultSubpartitionState(),
              splits.get(i)));
    }
    return result;
  }

  /**
   * A source's checkpointed splits for {@code parallelism} subtasks: at the same parallelism each
   * subtask keeps its own; otherwise the splits, in old-subtask order, are dealt round robin, and
   * every subtask gets every split watermark (it keeps those of the splits it reads).
   */
  static List<AssignedSplits> redistributeSplits(OperatorState source, int parallelism) {
    List<List<StateElement>> oldSplits = new ArrayList<>();
    List<List<StateElement>> oldWatermarks = new ArrayList<>();
    for (OperatorSubtaskState subtask : source.subtasks()) {
      SourceSplitsHandle h = subtask.splits();
      oldSplits.add(h == null ? List.of() : elements(h.data(), h.splits()));
      oldWatermarks.add(h == null ? List.of() : elements(h.data(), h.watermarks()));
    }
    List<AssignedSplits> result = new ArrayList<>();
    if (source.subtasks().size() == parallelism) {
      for (int i = 0; i < parallelism; i++) {
        result.add(new AssignedSplits(oldSplits.get(i), oldWatermarks.get(i)));
      }
      return result;
    }
    List<StateElement> allSplits = new ArrayList<>();
    oldSplits.forEach(allSplits::addAll);
    List<StateElement> allWatermarks = new ArrayList<>();
    oldWatermarks.forEach(allWatermarks::addAll);
    for (int i = 0; i < parallelism; i++) {
      List<StateElement> part = new ArrayList<>();
      for (int e = i; e < allSplits.size(); e += parallelism) {
        part.add(allSplits.get(e));
      }
      result.add(new AssignedSplits(part, allWatermarks));
    }
    return result;
  }

  private static List<StateElement> elements(StreamStateHandle data, long[] offsets) {
    List<StateElement> elements = new ArrayList<>(offsets.length);
    for (long offset : offsets) {
      elements.add(new StateElement.Stored(data, offset));
    }
    return elements;
  }

  /**
   * Subtask {@code subtask}'s share of one operator's own state, without a task's in-flight data or
   * splits (the operator harness restores one operator this way).
   */
  public static OperatorRestore assignOperator(
      OperatorState op, int parallelism, int maxParallelism, int subtask) {
    return new OperatorRestore(
        keyedOverlapping(op, KeyGroupsStateHandle.class, maxParallelism, parallelism, subtask),
        keyedOverlapping(
            op, IncrementalKeyedStateHandle.class, maxParallelism, parallelism, subtask),
        redistribute(oldLists(op), parallelism).get(subtask));
  }

  /** The old subtasks' keyed handles of {@code kind} whose key groups overlap the subtask's. */
  private static <H extends KeyedStateHandle> List<H> keyedOverlapping(
      OperatorState op, Class<H> kind, int maxParallelism, int parallelism, int subtask) {
    KeyGroupRange range =
        KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
            maxParallelism, parallelism, subtask);
    List<H> handles = new ArrayList<>();
    for (OperatorSubtaskState old : op.subtasks()) {
      KeyedStateHandle h = old.keyed();
      if (kind.isInstance(h) && h.range().intersection(range).getNumberOfKeyGroups() > 0) {
        handles.add(kind.cast(h));
      }
    }
    return handles;
  }

  /** Per old subtask, its lists of {@code op}, as elements in its operator-state stream. */
  private static List<Map<String, AssignedList>> oldLists(OperatorState op) {
    List<Map<String, AssignedList>> old = new ArrayList<>();
    for (OperatorSubtaskState subtask : op.subtasks()) {
      Map<String, AssignedList> lists = new LinkedHashMap<>();
      if (subtask.operator() != null) {
        subtask
            .operator()
            .states()
            .forEach(
                (name, meta) -> {
                  List<StateElement> elements = elements(subtask.operator().data(), meta.offsets());
                  StateSchema.Entry schema =
                      subtask.schema() == null ? null : subtask.schema().state(name);
                  lists.put(
                      name,
                      new AssignedList(
                          meta.mode(), elements, schema == null ? null : schema.valueSerializer()));
                });
      }
      old.add(lists);
    }
    return old;
  }

  /**
   * Deals the old subtasks' lists out to {@code newParallelism} subtasks: at the same parallelism
   * split lists stay where they were; otherwise split lists are concatenated in old-subtask order
   * and dealt round robin. Union lists go, concatenated, to every subtask.
   */
  static List<Map<String, AssignedList>> redistribute(
      List<Map<String, AssignedList>> oldSubtasks, int newParallelism) {
    Map<String, Mode> modes = new LinkedHashMap<>();
    Map<String, byte[]> snapshots = new LinkedHashMap<>();
    Map<String, List<StateElement>> all = new LinkedHashMap<>();
    for (Map<String, AssignedList> subtask : oldSubtasks) {
      subtask.forEach(
          (name, list) -> {
            modes.put(name, list.mode());
            if (list.serializerSnapshot() != null) {
              snapshots.put(name, list.serializerSnapshot());
            }
            all.computeIfAbsent(name, n -> new ArrayList<>()).addAll(list.elements());
          });
    }
    List<Map<String, AssignedList>> result = new ArrayList<>();
    for (int i = 0; i < newParallelism; i++) {
      result.add(new LinkedHashMap<>());
    }
    boolean keep = oldSubtasks.size() == newParallelism;
    all.forEach(
        (name, elements) -> {
          Mode mode = modes.get(name);
          for (int i = 0; i < newParallelism; i++) {
            List<StateElement> part;
            if (mode == Mode.UNION) {
              part = elements;
            } else if (keep) {
              AssignedList own = oldSubtasks.get(i).get(name);
              part = own == null ? List.of() : own.elements();
            } else {
              part = new ArrayList<>();
              for (int e = i; e < elements.size(); e += newParallelism) {
                part.add(elements.get(e));
              }
            }
            result.get(i).put(name, new AssignedList(mode, part, snapshots.get(name)));
          }
        });
    return result;
  }

  /**
   * In-flight data is per channel, so a checkpoint that holds some of a vertex is restored only
   * onto the same channels: at the vertex's own parallelism, and with the same parallelism at the
   * other end of every channel it recorded, upstream for its input, downstream for its output. A
   * restored gate replays the recorded data of the channels it has, so data recorded on a channel
   * from an upstream subtask that no longer exists would be lost.
   */
  private static void checkChannelStateParallelism(
      CompletedCheckpoint checkpoint, JobVertex vertex, OperatorState head) {
    boolean input = head.subtasks().stream().anyMatch(s -> !s.inputChannelState().isEmpty());
    boolean output = head.subtasks().stream().anyMatch(s -> !s.resultSubpartitionState().isEmpty());
    if (!input && !output) {
      return;
    }
    if (head.subtasks().size() != vertex.getParallelism()) {
      throw new IllegalStateException(
          "Checkpoint "
              + checkpoint.checkpointId()
              + " is unaligned and holds in-flight data of '"
              + vertex.getName()
              + "' for parallelism "
              + head.subtasks().size()
              + "; it cannot be restored at parallelism "
              + vertex.getParallelism()
              + ". Restore at the old parallelism, or rescale from an aligned checkpoint.");
    }
    if (input) {
      for (JobEdge edge : vertex.getInputs()) {
        checkOtherEnd(checkpoint, vertex, edge.producer(), "from");
      }
    }
    if (output) {
      for (JobEdge edge : vertex.getOutputs()) {
        checkOtherEnd(checkpoint, vertex, edge.consumer(), "to");
      }
    }
  }

  /** {@code direction}: "from" an upstream vertex, "to" a downstream one. */
  private static void checkOtherEnd(
      CompletedCheckpoint checkpoint, JobVertex vertex, JobVertex otherEnd, String direction) {
    OperatorState old = checkpoint.operator(otherEnd.getHead().getOperatorId());
    if (old != null && old.parallelism() == otherEnd.getParallelism()) {
      return;
    }
    String channels =
        "Checkpoint "
            + checkpoint.checkpointId()
            + " is unaligned and holds in-flight data of '"
            + vertex.getName()
            + "' on its channels "
            + direction
            + " '"
            + otherEnd.getName()
            + "'";
    throw new IllegalStateException(
        old == null
            ? channels
                + ", which the checkpoint does not hold (a new operator, or one whose uid"
                + " changed); it can only be restored onto the same channels. Restore the job"
                + " with the operators it had, or from an aligned checkpoint."
            : channels
                + " at parallelism "
                + old.parallelism()
                + "; it cannot be restored with '"
                + otherEnd.getName()
                + "' at parallelism "
                + otherEnd.getParallelism()
                + ". Restore at the old parallelism, or rescale from an aligned checkpoint.");
  }
}
