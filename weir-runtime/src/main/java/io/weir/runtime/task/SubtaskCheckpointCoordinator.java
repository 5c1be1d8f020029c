package io.weir.runtime.task;

import io.weir.api.CheckpointStatistics;
import io.weir.api.functions.TaskInfo;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.CheckpointMetrics;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.InFlightData;
import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.ResultSubpartitionInfo;
import io.weir.runtime.checkpoint.SubtaskStateCodec;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.metrics.TaskIOMetrics;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.storage.CheckpointStateWriter;
import io.weir.runtime.storage.StreamStateHandle;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subtask's side of the checkpoint protocol, apart from its task's processing loop: takes the
 * snapshot at a barrier and forwards the barrier (aligned, overtaking, or convertible by the
 * aligned timeout at the outputs), keeps snapshots that wait for in-flight data, runs the
 * asynchronous part on the snapshot pool, and acknowledges or declines to the coordinator with what
 * it measured.
 *
 * <p>Task thread only, except {@link #awaitUploads} (also the task thread, at its end) and the
 * uploads themselves (snapshot pool).
 */
final class SubtaskCheckpointCoordinator {

  private static final Logger LOG = LoggerFactory.getLogger(SubtaskCheckpointCoordinator.class);

  /** What the coordinator needs of its task. Task thread. */
  interface Task {
    /** State the task itself holds (a source's splits), added before the operators'. */
    void snapshotTaskState(long checkpointId, List<OperatorSnapshot> into) throws Exception;

    /** The operators of the task's chain, head first. */
    List<StreamOperator<?>> operators();

    /** When the first barrier of {@code checkpointId} reached the task; sources: now. */
    long firstBarrierMillis(long checkpointId, long now);

    /**
     * The producer of the input channel whose barrier of {@code checkpointId} arrived last (e.g.
     * {@code "Source (1/2)"}); null for a source.
     */
    String lastBarrierFrom(long checkpointId);

    /**
     * True when an unaligned snapshot must wait for the in-flight data of the task's input channels
     * ({@link #inputChannelStateComplete}).
     */
    boolean holdForChannelState(ChannelEvent.CheckpointBarrier barrier);

    /** True once the task's input has ended. */
    boolean endOfInput();

    /** True once the task stopped (failed, cancelled) and may have closed its state. */
    boolean stopped();
  }

  private final TaskInfo taskInfo;
  private final JobVertex vertex;
  private final TaskCheckpointing checkpointing;
  private final Mailbox mailbox;
  private final Waker waker;
  private final ScheduledExecutorService timer;
  private final TaskIOMetrics ioMetrics;
  private final Task task;

  private RecordWriter<?>[] writers = new RecordWriter<?>[0];
  private StreamEdge[] edges = new StreamEdge[0];

  /** What each checkpoint's snapshot measured, until it is uploaded. Task thread. */
  private final Map<Long, CheckpointMetrics> metrics = new HashMap<>();

  /** Snapshots waiting for in-flight data, by checkpoint id. Task thread. */
  private final TreeMap<Long, PendingSnapshot> pendingSnapshots = new TreeMap<>();

  /** Uploads submitted to the snapshot pool and not yet ended. */
  private final AtomicInteger uploadsInFlight = new AtomicInteger();

  SubtaskCheckpointCoordinator(
      TaskInfo taskInfo,
      JobVertex vertex,
      TaskCheckpointing checkpointing,
      Mailbox mailbox,
      Waker waker,
      ScheduledExecutorService timer,
      TaskIOMetrics ioMetrics,
      Task task) {
    this.taskInfo = taskInfo;
    this.vertex = vertex;
    this.checkpointing = checkpointing;
    this.mailbox = mailbox;
    this.waker = waker;
    this.timer = timer;
    this.ioMetrics = ioMetrics;
    this.task = task;
  }

  /** The task's network outputs, in wiring order; before the task runs. */
  void setOutputs(RecordWriter<?>[] writers, StreamEdge[] edges) {
    this.writers = writers;
    this.edges = edges;
    for (int w = 0; w < writers.length; w++) {
      int writer = w;
      writers[w].setBarrierListener(
          new RecordWriter.ChannelBarrierListener() {
            @Override
            public void delivered(int channel, long checkpointId) {
              mailbox.put(() -> onOutputBarrierDelivered(checkpointId, writer, channel));
            }

            @Override
            public void converted(
                int channel, long checkpointId, List<ChannelStateEntry> overtaken) {
              mailbox.put(() -> onOutputBarrierConverted(checkpointId, writer, channel, overtaken));
            }
          });
    }
  }

  /**
   * The barrier a source emits for a trigger of checkpoint {@code id} with {@code options}: a
   * savepoint's is always aligned, an at-least-once checkpoint's never overtakes.
   */
  ChannelEvent.CheckpointBarrier barrierForTrigger(
      long checkpointId, long timestamp, CheckpointOptions options) {
    return options.toBarrier(checkpointId, timestamp, checkpointing.exactlyOnce());
  }

  /**
   * Takes the task's snapshot for {@code barrier} and forwards the barrier. The synchronous part
   * runs here, between two records; the upload runs on the snapshot pool and the task acknowledges
   * when it finished.
   */
  void checkpoint(ChannelEvent.CheckpointBarrier barrier) throws Exception {
    long id = barrier.checkpointId();
    long now = System.currentTimeMillis();
    long syncStart = System.nanoTime();
    long firstBarrier = Math.min(now, task.firstBarrierMillis(id, now));
    List<OperatorSnapshot> snapshots =
        snapshotState(
            id, barrier.timestamp(), CheckpointOptions.of(barrier, checkpointing.alignment()));
    PendingSnapshot pending = new PendingSnapshot(id, snapshots, barrier.targetLocation());
    ChannelEvent.CheckpointBarrier forward = barrierToForward(barrier);
    if (forward.unaligned()) {
      Map<ResultSubpartitionInfo, List<ChannelStateEntry>> overtaken = new LinkedHashMap<>();
      for (int w = 0; w < writers.length; w++) {
        List<List<ChannelStateEntry>> perChannel = writers[w].broadcastPriorityEvent(forward);
        for (int c = 0; c < perChannel.size(); c++) {
          if (!perChannel.get(c).isEmpty()) {
            overtaken.put(new ResultSubpartitionInfo(edges[w].id(), c), perChannel.get(c));
          }
        }
      }
      pending.addChannelState(new InFlightData(Map.of(), overtaken));
    } else if (mayConvertOnTimeout(forward)) {
      for (int w = 0; w < writers.length; w++) {
        pending.awaitOutput(w, writers[w].getNumberOfChannels());
        writers[w].broadcastConvertibleBarrier(forward);
      }
      long delay = Math.max(0, firstBarrier + checkpointing.alignedTimeoutMillis() - now);
      pending.setAlignedTimeout(
          timer.schedule(
              () -> mailbox.put(() -> onAlignedBarrierTimeout(id)), delay, TimeUnit.MILLISECONDS));
    } else {
      for (RecordWriter<?> writer : writers) {
        writer.broadcastEvent(forward);
      }
    }
    CheckpointMetrics measured =
        new CheckpointMetrics(
            Math.max(0, firstBarrier - barrier.timestamp()),
            barrier.unaligned() ? 0 : now - firstBarrier,
            (System.nanoTime() - syncStart) / 1_000_000,
            barrier.unaligned(),
            // A savepoint's state is never recorded as finished: a job resumed from it restores
            // every operator, also after a stop with drain.
            task.endOfInput() && !barrier.savepoint(),
            barrier.unaligned() ? null : task.lastBarrierFrom(id));
    metrics.put(id, measured);
    ioMetrics.checkpointTaken(measured.startDelayMillis(), measured.alignmentMillis());
    if (task.holdForChannelState(barrier)) {
      pending.awaitInput();
    }
    if (pending.isComplete()) {
      uploadAndAcknowledge(id, pending.targetLocation(), pending.snapshotsWithChannelState());
    } else {
      pendingSnapshots.put(id, pending);
    }
  }

  /** The synchronous part: the task's own state, then every operator's, head first. */
  private List<OperatorSnapshot> snapshotState(
      long checkpointId, long timestamp, CheckpointOptions options) throws Exception {
    List<OperatorSnapshot> snapshots = new ArrayList<>();
    try {
      task.snapshotTaskState(checkpointId, snapshots);
      for (StreamOperator<?> op : task.operators()) {
        snapshots.add(snapshotOperator(op, checkpointId, timestamp, options));
      }
    } catch (Exception e) {
      PendingSnapshot.releaseAll(snapshots);
      throw e;
    }
    return snapshots;
  }

  private static OperatorSnapshot snapshotOperator(
      StreamOperator<?> op, long id, long timestamp, CheckpointOptions options) throws Exception {
    try {
      return op.snapshotState(id, timestamp, options);
    } catch (OperatorException | CancelTaskException e) {
      throw e;
    } catch (Exception e) {
      throw new OperatorException(op.getName(), e);
    }
  }

  /**
   * After end of input, barriers travel in order: an overtaking barrier would arrive before
   * end-of-data, and downstream would take the final checkpoint before it finished.
   */
  private ChannelEvent.CheckpointBarrier barrierToForward(ChannelEvent.CheckpointBarrier barrier) {
    return task.endOfInput() && barrier.unaligned() ? barrier.withUnaligned(false) : barrier;
  }

  /**
   * With aligned-then-unaligned checkpoints, an aligned barrier that waits in an output queue
   * longer than the aligned timeout becomes an overtaking one. Never a savepoint (always aligned),
   * and never after end of input (barriers then travel in order, behind end-of-data).
   */
  private boolean mayConvertOnTimeout(ChannelEvent.CheckpointBarrier forward) {
    return writers.length > 0
        && !forward.unaligned()
        && !forward.savepoint()
        && !task.endOfInput()
        && checkpointing.exactlyOnce()
        && checkpointing.alignment() == BarrierHandler.Alignment.ALIGNED_THEN_UNALIGNED;
  }

  /** A consumer took the aligned barrier of checkpoint {@code id} from an output channel. */
  private void onOutputBarrierDelivered(long id, int writer, int channel) {
    PendingSnapshot pending = pendingSnapshots.get(id);
    if (pending != null) {
      pending.outputDelivered(writer, channel);
      uploadIfComplete(pending);
    }
  }

  /**
   * The barrier of checkpoint {@code id} in an output channel overtook the buffers before it, after
   * the aligned timeout; {@code overtaken} is the in-flight data that waited at this end.
   */
  private void onOutputBarrierConverted(
      long id, int writer, int channel, List<ChannelStateEntry> overtaken) {
    PendingSnapshot pending = pendingSnapshots.get(id);
    if (pending == null) {
      return;
    }
    pending.outputConverted(
        writer, channel, new ResultSubpartitionInfo(edges[writer].id(), channel), overtaken);
    metrics.computeIfPresent(id, (k, m) -> m.asUnaligned());
    uploadIfComplete(pending);
  }

  /**
   * The aligned timeout of checkpoint {@code id} passed at this task's outputs: every barrier still
   * on its way to a consumer is asked to jump ahead of the buffers before it, which become
   * in-flight data of the checkpoint. Each channel then reports its barrier delivered or converted.
   */
  private void onAlignedBarrierTimeout(long id) {
    PendingSnapshot pending = pendingSnapshots.get(id);
    if (pending == null) {
      return;
    }
    LOG.debug(
        "{} converts the barriers of checkpoint {} still on their way to unaligned",
        taskInfo.taskNameWithSubtasks(),
        id);
    for (int w = 0; w < writers.length; w++) {
      BitSet waiting = pending.awaitingOutput(w);
      for (int c = waiting.nextSetBit(0); c >= 0; c = waiting.nextSetBit(c + 1)) {
        writers[w].requestConversion(c, id);
      }
    }
  }

  /**
   * The input channels' in-flight data of checkpoint {@code id} is complete; ignored when the
   * checkpoint was given up meanwhile.
   */
  void inputChannelStateComplete(long id, InFlightData recorded) {
    PendingSnapshot pending = pendingSnapshots.get(id);
    if (pending != null) {
      pending.inputComplete(recorded);
      uploadIfComplete(pending);
    }
  }

  private void uploadIfComplete(PendingSnapshot pending) {
    if (pending.isComplete()) {
      pendingSnapshots.remove(pending.checkpointId());
      uploadAndAcknowledge(
          pending.checkpointId(), pending.targetLocation(), pending.snapshotsWithChannelState());
    }
  }

  /** This task will not acknowledge checkpoint {@code id}: its waiting snapshot is freed. */
  void discardPendingSnapshot(long id) {
    PendingSnapshot pending = pendingSnapshots.remove(id);
    if (pending != null) {
      pending.release();
      metrics.remove(id);
    }
  }

  /** Checkpoint {@code id} was aborted: the snapshots waiting for it and older ones are freed. */
  void checkpointAborted(long id) {
    Map<Long, PendingSnapshot> given = pendingSnapshots.headMap(id, true);
    for (PendingSnapshot pending : given.values()) {
      pending.release();
      metrics.remove(pending.checkpointId());
    }
    given.clear();
  }

  /** The task stops: every snapshot still waiting is freed. */
  void releasePending() {
    for (PendingSnapshot pending : pendingSnapshots.values()) {
      pending.release();
    }
    pendingSnapshots.clear();
  }

  /**
   * Waits until the uploads of this task's snapshots ended. A task that stops — finished, failed or
   * cancelled — calls it before {@link StreamTask#cleanup} closes the state they read, and before
   * it reports its end (as Flink's tasks wait for their pending checkpoints):
   *
   * <ul>
   *   <li>finishing: a checkpoint triggered just after the final one may reach the task before it
   *       ends; closing a RocksDB backend under that snapshot's upload would make the task decline
   *       the checkpoint, and the coordinator would fail the job over although nothing failed;
   *   <li>cancelled or failed: the coordinator aborted the checkpoint and deleted its directory; an
   *       upload cut short by the closed state would leave the files it wrote so far behind, while
   *       an upload that ends acknowledges late and the coordinator deletes them again.
   * </ul>
   */
  void awaitUploads() {
    while (uploadsInFlight.get() > 0) {
      Thread.interrupted(); // a cancellation interrupt would make every wait return at once
      waker.await(Long.MAX_VALUE);
    }
  }

  /**
   * The asynchronous part: writes the snapshots to {@code targetLocation} (null: the job's
   * storage), then acknowledges.
   */
  private void uploadAndAcknowledge(
      long id, String targetLocation, List<OperatorSnapshot> snapshots) {
    CheckpointMetrics measured = metrics.remove(id);
    CheckpointMetrics m = measured != null ? measured : CheckpointMetrics.NONE;
    long inFlightBytes = channelStateBytes(snapshots);
    uploadsInFlight.incrementAndGet();
    try {
      checkpointing
          .asyncExecutor()
          .execute(() -> upload(id, targetLocation, snapshots, m, inFlightBytes));
    } catch (RuntimeException e) {
      uploadEnded();
      throw e;
    }
  }

  private static long channelStateBytes(List<OperatorSnapshot> snapshots) {
    InFlightData inFlight = snapshots.isEmpty() ? null : snapshots.get(0).inFlight();
    return inFlight == null ? 0 : inFlight.bytes();
  }

  private void uploadEnded() {
    uploadsInFlight.decrementAndGet();
    waker.signal();
  }

  /** On the snapshot pool: writes the snapshots, then acknowledges or declines the checkpoint. */
  private void upload(
      long id,
      String targetLocation,
      List<OperatorSnapshot> snapshots,
      CheckpointMetrics m,
      long inFlightBytes) {
    int vertexIndex = vertex.getIndex();
    int subtask = taskInfo.indexOfThisSubtask();
    long asyncStart = System.nanoTime();
    try {
      CheckpointStateWriter storage = checkpointing.storage().location(id, targetLocation);
      Map<String, OperatorSubtaskState> states = new LinkedHashMap<>();
      long stateSize = 0;
      long checkpointedSize = 0;
      // Operators of a chain may share a stream (older formats): each file once.
      Set<StreamStateHandle.File> files = new HashSet<>();
      for (OperatorSnapshot snapshot : snapshots) {
        OperatorSubtaskState state =
            SubtaskStateCodec.persist(id, snapshot, storage, m.endOfInput());
        states.put(snapshot.operatorId(), state);
        stateSize += state.stateSize();
        checkpointedSize += state.checkpointedSize();
        files.addAll(state.filesWritten());
      }
      checkpointing
          .responder()
          .acknowledge(
              vertexIndex,
              subtask,
              id,
              states,
              new CheckpointStatistics.SubtaskCheckpointStatistics(
                      vertex.getName(),
                      subtask,
                      m.startDelayMillis(),
                      m.alignmentMillis(),
                      m.unaligned(),
                      inFlightBytes,
                      m.syncMillis(),
                      (System.nanoTime() - asyncStart) / 1_000_000,
                      stateSize,
                      checkpointedSize)
                  .withFilesWritten(files.size())
                  .withLastBarrierFrom(m.lastBarrierFrom()));
    } catch (Throwable t) {
      PendingSnapshot.releaseAll(snapshots);
      if (task.stopped()) {
        // The task stopped (failed, was cancelled) and closed the state this upload read. Its
        // end reaches the coordinator, which aborts the attempt's checkpoints: a decline here
        // would be counted as one more failed checkpoint for a failure already being handled.
        LOG.info(
            "{} stopped during the upload of checkpoint {}; not declining it: {}",
            taskInfo.taskNameWithSubtasks(),
            id,
            t.toString());
      } else {
        LOG.warn("{} could not write checkpoint {}", taskInfo.taskNameWithSubtasks(), id, t);
        checkpointing.responder().decline(vertexIndex, subtask, id, t);
      }
    } finally {
      uploadEnded();
    }
  }
}
