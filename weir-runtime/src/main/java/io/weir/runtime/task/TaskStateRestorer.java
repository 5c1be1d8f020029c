package io.weir.runtime.task;

import io.weir.runtime.checkpoint.ResultSubpartitionInfo;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.metrics.RestoreProgress;
import io.weir.runtime.metrics.TaskIOMetrics;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.state.TaskLocalStateStore;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * How a {@link StreamTask} comes back from what it restores: it reads its share of the state,
 * counting what it reads into the subtask's restore progress; its operators initialize their state
 * and open; its overtaken output goes out again before any new record.
 *
 * <p>Made with the task; the task thread does the rest, when the task starts.
 */
final class TaskStateRestorer {

  /** What this subtask restores, as handles, counting into the restore progress what it reads. */
  private final TaskRestore restore;

  private final TaskIOMetrics ioMetrics;

  /** The restored state, once read. */
  private TaskRestore.Read restored;

  TaskStateRestorer(TaskRestore restore, TaskIOMetrics ioMetrics) {
    RestoreProgress progress = restore.progress();
    ioMetrics.restoring(progress);
    this.restore = restore.countingInto(progress);
    this.ioMetrics = ioMetrics;
  }

  /**
   * Reads the restored state; of the local copies in {@code localState} (null: none kept) only the
   * restored checkpoint's stay.
   */
  TaskRestore.Read read(TaskLocalStateStore localState) throws IOException {
    RestoreProgress progress = ioMetrics.restore();
    if (progress != null) {
      progress.begin();
    }
    restored = restore.read();
    if (localState != null) {
      // Copies of other checkpoints are subsumed or of checkpoints that never completed.
      localState.retainOnly(restore.checkpointId());
    }
    return restored;
  }

  /** The restored state, once {@link #read} read it: operators, channel state, splits. */
  TaskRestore.Read restored() {
    return restored;
  }

  /** Each operator, tail first, initializes its state and opens. */
  static void openOperators(List<StreamOperator<?>> operatorsHeadFirst) throws Exception {
    for (int i = operatorsHeadFirst.size() - 1; i >= 0; i--) {
      StreamOperator<?> op = operatorsHeadFirst.get(i);
      StreamTask.callOperator(op, op::initializeState);
      StreamTask.callOperator(op, op::open);
    }
  }

  /** Restored overtaken output buffers and events go out before any new record. */
  void replayOutputChannelState(Map<StreamEdge, RecordWriter<?>> writers) {
    for (Map.Entry<StreamEdge, RecordWriter<?>> e : writers.entrySet()) {
      RecordWriter<?> writer = e.getValue();
      for (int c = 0; c < writer.getNumberOfChannels(); c++) {
        List<ChannelStateEntry> entries =
            restored.inFlight().outputs().get(new ResultSubpartitionInfo(e.getKey().id(), c));
        if (entries != null) {
          writer.replay(c, entries);
        }
      }
    }
  }
}
