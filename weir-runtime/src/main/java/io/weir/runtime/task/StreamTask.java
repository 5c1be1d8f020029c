package io.weir.runtime.task;

import io.weir.api.CheckpointStatistics;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.TaskInfo;
import io.weir.api.source.InputStatus;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.SubtaskStateCodec;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyedStateBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One parallel subtask: one thread running a mailbox loop over its operator chain. Between records
 * it runs mail; it takes input only while every output can take more, so a slow consumer stops it
 * without blocking its mailbox. Subclasses say where input comes from.
 *
 * <p>State and operators are touched only by the task thread. {@link #cancel()} may be called from
 * any thread.
 */
public abstract class StreamTask implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(StreamTask.class);

  protected final JobGraph graph;
  protected final JobVertex vertex;
  protected final TaskInfo taskInfo;
  protected final Waker waker = new Waker();
  protected final Mailbox mailbox = new Mailbox(waker);
  private final ScheduledExecutorService timer;
  private final TaskListener listener;
  private final Map<StreamEdge, RecordWriter<?>> writers = new LinkedHashMap<>();
  private final AtomicBoolean cancelled = new AtomicBoolean();
  private final CompletableFuture<TaskState> termination = new CompletableFuture<>();
  private volatile TaskState state = TaskState.CREATED;
  private volatile Thread thread;

  /** Uploads of this task's snapshots submitted to the snapshot pool and not yet ended. */
  private final AtomicInteger uploadsInFlight = new AtomicInteger();

  /**
   * Set when the task stops running, before {@link #cleanup} closes its state: an upload that fails
   * from then on failed because the state was closed under it, not for a reason of its own.
   */
  private volatile boolean stopped;

  protected OperatorChain chain;
  private RecordWriter<?>[] writerArray = new RecordWriter<?>[0];
  private StreamEdge[] edgeArray = new StreamEdge[0];
  private ScheduledFuture<?> flusher;
  private final AtomicBoolean flushPending = new AtomicBoolean();
  protected long numRecordsIn;
  protected long numRecordsOut;

  protected final TaskCheckpointing checkpointing;

  /** Per checkpoint: start delay, alignment, sync duration, unaligned (1/0). Task thread. */
  private final Map<Long, long[]> pendingStatistics = new java.util.HashMap<>();

  /** Snapshots waiting for in-flight data, by checkpoint id. Task thread. */
  private final TreeMap<Long, PendingSnapshot> pendingSnapshots = new TreeMap<>();

  private boolean finalCheckpointCompleted;
  private boolean endOfInput;

  protected StreamTask(
      JobGraph graph,
      JobVertex vertex,
      TaskInfo taskInfo,
      ScheduledExecutorService timer,
      TaskListener listener,
      TaskCheckpointing checkpointing) {
    this.graph = graph;
    this.vertex = vertex;
    this.taskInfo = taskInfo;
    this.timer = timer;
    this.listener = listener;
    this.checkpointing = checkpointing;
  }

  public TaskInfo getTaskInfo() {
    return taskInfo;
  }

  public JobVertex getVertex() {
    return vertex;
  }

  public Waker getWaker() {
    return waker;
  }

  public Mailbox getMailbox() {
    return mailbox;
  }

  public TaskState getState() {
    return state;
  }

  public CompletableFuture<TaskState> getTermination() {
    return termination;
  }

  public boolean isCancelled() {
    return cancelled.get();
  }

  public long getNumRecordsIn() {
    return numRecordsIn;
  }

  public long getNumRecordsOut() {
    return numRecordsOut;
  }

  /** Wires a network output; before the thread starts. */
  public void addWriter(StreamEdge edge, RecordWriter<?> writer) {
    writers.put(edge, writer);
    writerArray = writers.values().toArray(new RecordWriter<?>[0]);
    edgeArray = writers.keySet().toArray(new StreamEdge[0]);
  }

  /** Starts the task's thread. */
  public void start() {
    Thread t = new Thread(this, taskInfo.taskNameWithSubtasks());
    t.setDaemon(true);
    waker.bindTo(t);
    thread = t;
    t.start();
  }

  /** Stops the task as soon as possible; its thread ends with state CANCELED. */
  public void cancel() {
    if (cancelled.compareAndSet(false, true)) {
      waker.signal();
      Thread t = thread;
      if (t != null && state == TaskState.RUNNING) {
        t.interrupt();
      }
    }
  }

  @Override
  public final void run() {
    state = TaskState.RUNNING;
    Throwable failure = null;
    TaskState end;
    try {
      if (cancelled.get()) {
        throw new CancelTaskException();
      }
      invoke();
      end = TaskState.FINISHED;
    } catch (Throwable t) {
      if (cancelled.get() || t instanceof CancelTaskException) {
        end = TaskState.CANCELED;
      } else {
        end = TaskState.FAILED;
        failure = wrapFailure(t);
        LOG.warn("{} failed: {}", taskInfo.taskNameWithSubtasks(), t.toString());
        LOG.debug("{} failure", taskInfo.taskNameWithSubtasks(), t);
      }
    } finally {
      Thread.interrupted(); // clear a cancellation interrupt before cleanup
    }
    stopped = true;
    awaitUploads();
    try {
      cleanup(end == TaskState.FINISHED);
    } catch (Throwable t) {
      if (end == TaskState.FINISHED) {
        end = TaskState.FAILED;
        failure = wrapFailure(t);
      } else if (failure != null) {
        failure.addSuppressed(t);
      }
    }
    state = end;
    try {
      listener.onTerminated(this, end, failure);
    } finally {
      termination.complete(end);
    }
  }

  private Throwable wrapFailure(Throwable t) {
    String operator = null;
    Throwable cause = t;
    if (t instanceof OperatorException oe) {
      operator = oe.getOperatorName();
      cause = oe.getCause();
    }
    return new TaskFailureException(
        vertex.getName(),
        operator,
        taskInfo.indexOfThisSubtask(),
        taskInfo.numberOfParallelSubtasks(),
        cause);
  }

  private void invoke() throws Exception {
    chain =
        new OperatorChain(
            graph,
            vertex,
            taskInfo,
            writers,
            new TaskProcessingTimeService(timer, mailbox),
            checkpointing.restored());
    List<StreamOperator<?>> operators = chain.operatorsHeadFirst();
    for (int i = operators.size() - 1; i >= 0; i--) {
      StreamOperator<?> op = operators.get(i);
      callOperator(op, op::initializeState);
      callOperator(op, op::open);
    }
    replayOutputChannelState();
    initializeInput();
    startBufferFlusher();
    runMailboxLoop();
    for (StreamOperator<?> op : operators) {
      callOperator(op, op::finish);
    }
    endOfInput = true;
    for (RecordWriter<?> writer : writerArray) {
      writer.broadcastEvent(ChannelEvent.EndOfData.INSTANCE);
    }
    if (checkpointing.enabled()) {
      // A bounded input ends with a final checkpoint, so that two-phase-commit sinks commit
      // everything they wrote before the job finishes.
      checkpointing.responder().reachedEndOfInput(vertex.getIndex(), taskInfo.indexOfThisSubtask());
    }
    runFinalPhase();
    for (RecordWriter<?> writer : writerArray) {
      writer.broadcastEvent(ChannelEvent.EndOfPartition.INSTANCE);
    }
  }

  /**
   * A task that stops — finished, failed or cancelled — lets the uploads of its snapshots end
   * before {@link #cleanup} closes the state they read, and before it reports its end (as Flink's
   * tasks wait for their pending checkpoints):
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
  private void awaitUploads() {
    while (uploadsInFlight.get() > 0) {
      Thread.interrupted(); // a cancellation interrupt would make every wait return at once
      waker.await(Long.MAX_VALUE);
    }
  }

  /** Restored overtaken output buffers go out before any new record. */
  private void replayOutputChannelState() {
    for (Map.Entry<StreamEdge, RecordWriter<?>> e : writers.entrySet()) {
      RecordWriter<?> writer = e.getValue();
      for (int c = 0; c < writer.getNumberOfChannels(); c++) {
        List<byte[]> buffers =
            checkpointing
                .channelState()
                .get(TaskCheckpointing.outputChannelState(e.getKey().id(), c));
        if (buffers != null) {
          writer.replay(c, buffers);
        }
      }
    }
  }

  /** The shared timer thread, for task-side timeouts. */
  protected ScheduledExecutorService timer() {
    return timer;
  }

  /** After the last record: serve checkpoints until the final one completed and input closed. */
  private void runFinalPhase() throws Exception {
    while (!finalPhaseDone()) {
      if (mailbox.hasMail()) {
        mailbox.runAll();
        continue;
      }
      if (cancelled.get()) {
        throw new CancelTaskException();
      }
      if (processFinalInput() == InputStatus.NOTHING_AVAILABLE && !finalPhaseDone()) {
        waker.await(Long.MAX_VALUE);
      }
    }
  }

  private boolean finalPhaseDone() {
    return isInputClosed() && (!checkpointing.enabled() || finalCheckpointCompleted);
  }

  /** After end of data, consumes what is left (events); sources have nothing. */
  protected InputStatus processFinalInput() throws Exception {
    return InputStatus.NOTHING_AVAILABLE;
  }

  /** True when every input channel delivered end-of-partition; sources have none. */
  protected boolean isInputClosed() {
    return true;
  }

  // ------------------------------------------------------------------ checkpoints

  /** From the coordinator, any thread: a source takes checkpoint {@code id}. */
  public void triggerCheckpointAsync(long checkpointId, long timestamp) {
    boolean unaligned =
        checkpointing.exactlyOnce()
            && checkpointing.alignment() == BarrierHandler.Alignment.UNALIGNED;
    mailbox.put(
        () ->
            performCheckpoint(
                new ChannelEvent.CheckpointBarrier(checkpointId, timestamp, false, unaligned)));
  }

  /**
   * After end of input, barriers travel in order: an overtaking barrier would arrive before
   * end-of-data, and downstream would take the final checkpoint before it finished.
   */
  private ChannelEvent.CheckpointBarrier barrierToForward(ChannelEvent.CheckpointBarrier barrier) {
    return endOfInput && barrier.unaligned()
        ? new ChannelEvent.CheckpointBarrier(
            barrier.checkpointId(), barrier.timestamp(), barrier.savepoint(), false)
        : barrier;
  }

  /** From the coordinator, any thread. */
  public void notifyCheckpointCompleteAsync(long checkpointId) {
    notifyCheckpointCompleteAsync(checkpointId, false);
  }

  /**
   * From the coordinator, any thread. {@code isFinal}: every subtask had ended its input when it
   * took this checkpoint, so a task whose input ended may finish now.
   */
  public void notifyCheckpointCompleteAsync(long checkpointId, boolean isFinal) {
    mailbox.put(
        () -> {
          notifyCheckpointComplete(checkpointId);
          if (isFinal && endOfInput) {
            finalCheckpointCompleted = true;
          }
        });
  }

  /** From the coordinator, any thread. */
  public void notifyCheckpointAbortedAsync(long checkpointId) {
    mailbox.put(() -> notifyCheckpointAborted(checkpointId));
  }

  /**
   * Takes this task's snapshot for {@code barrier} and forwards the barrier. The synchronous part
   * runs here, on the task thread, between two records; the upload runs on the snapshot pool and
   * the task acknowledges when it finished.
   */
  protected void performCheckpoint(ChannelEvent.CheckpointBarrier barrier) throws Exception {
    long id = barrier.checkpointId();
    long now = System.currentTimeMillis();
    long syncStart = System.nanoTime();
    long firstBarrier = Math.min(now, firstBarrierMillis(id, now));
    List<OperatorSnapshot> snapshots = new ArrayList<>();
    try {
      snapshotTaskState(id, snapshots);
      for (StreamOperator<?> op : chain.operatorsHeadFirst()) {
        snapshots.add(snapshotOperator(op, id, barrier.timestamp()));
      }
    } catch (Exception e) {
      releaseAll(snapshots);
      throw e;
    }
    PendingSnapshot pending = new PendingSnapshot(id, snapshots);
    ChannelEvent.CheckpointBarrier forward = barrierToForward(barrier);
    if (forward.unaligned()) {
      Map<String, DefaultOperatorStateStore.RestoredList> overtaken = new LinkedHashMap<>();
      for (int w = 0; w < writerArray.length; w++) {
        List<List<byte[]>> perChannel = writerArray[w].broadcastPriorityEvent(forward);
        for (int c = 0; c < perChannel.size(); c++) {
          if (!perChannel.get(c).isEmpty()) {
            overtaken.put(
                TaskCheckpointing.outputChannelState(edgeArray[w].id(), c),
                new DefaultOperatorStateStore.RestoredList(
                    DefaultOperatorStateStore.Mode.SPLIT, perChannel.get(c)));
          }
        }
      }
      pending.addChannelState(overtaken);
    } else if (mayConvertOnTimeout(forward)) {
      for (int w = 0; w < writerArray.length; w++) {
        int writer = w;
        pending.awaitOutput(w, writerArray[w].getNumberOfChannels());
        writerArray[w].broadcastConvertibleBarrier(
            forward, channel -> mailbox.put(() -> onOutputBarrierDelivered(id, writer, channel)));
      }
      long delay = Math.max(0, firstBarrier + checkpointing.alignedTimeoutMillis() - now);
      pending.setAlignedTimeout(
          timer.schedule(
              () -> mailbox.put(() -> onAlignedBarrierTimeout(id)), delay, TimeUnit.MILLISECONDS));
    } else {
      for (RecordWriter<?> writer : writerArray) {
        writer.broadcastEvent(forward);
      }
    }

    pendingStatistics.put(
        id,
        new long[] {
          Math.max(0, firstBarrier - barrier.timestamp()),
          barrier.unaligned() ? 0 : now - firstBarrier,
          (System.nanoTime() - syncStart) / 1_000_000,
          barrier.unaligned() ? 1 : 0,
          endOfInput ? 1 : 0
        });
    if (holdForChannelState(barrier)) {
      pending.awaitInput();
    }
    if (pending.isComplete()) {
      uploadAndAcknowledge(id, pending.snapshotsWithChannelState());
    } else {
      pendingSnapshots.put(id, pending);
    }
  }

  /**
   * With aligned-then-unaligned checkpoints, an aligned barrier that waits in an output queue
   * longer than the aligned timeout becomes an overtaking one. Never a savepoint (always aligned),
   * and never after end of input (barriers then travel in order, behind end-of-data).
   */
  private boolean mayConvertOnTimeout(ChannelEvent.CheckpointBarrier forward) {
    return writerArray.length > 0
        && !forward.unaligned()
        && !forward.savepoint()
        && !endOfInput
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
   * The aligned timeout of checkpoint {@code id} passed at this task's outputs: every barrier still
   * waiting in an output queue jumps ahead of the buffers before it, which become in-flight data of
   * the checkpoint. A barrier the consumer took meanwhile counts as delivered.
   */
  private void onAlignedBarrierTimeout(long id) {
    PendingSnapshot pending = pendingSnapshots.get(id);
    if (pending == null) {
      return;
    }
    for (int w = 0; w < writerArray.length; w++) {
      BitSet waiting = pending.awaitingOutput(w);
      for (int c = waiting.nextSetBit(0); c >= 0; c = waiting.nextSetBit(c + 1)) {
        List<byte[]> overtaken = writerArray[w].convertToUnaligned(c, id);
        if (overtaken == null) {
          pending.outputDelivered(w, c);
        } else {
          pending.outputConverted(
              w, c, TaskCheckpointing.outputChannelState(edgeArray[w].id(), c), overtaken);
        }
      }
    }
    if (pending.converted()) {
      long[] stats = pendingStatistics.get(id);
      if (stats != null) {
        stats[3] = 1;
      }
      LOG.debug(
          "{} converted the barrier of checkpoint {} to unaligned at its outputs",
          taskInfo.taskNameWithSubtasks(),
          id);
    }
    uploadIfComplete(pending);
  }

  /**
   * The input channels' in-flight data of checkpoint {@code id} is complete; ignored when the
   * checkpoint was given up meanwhile.
   */
  protected void inputChannelStateComplete(
      long id, Map<String, DefaultOperatorStateStore.RestoredList> recorded) {
    PendingSnapshot pending = pendingSnapshots.get(id);
    if (pending != null) {
      pending.inputComplete(recorded);
      uploadIfComplete(pending);
    }
  }

  private void uploadIfComplete(PendingSnapshot pending) {
    if (pending.isComplete()) {
      pendingSnapshots.remove(pending.checkpointId());
      uploadAndAcknowledge(pending.checkpointId(), pending.snapshotsWithChannelState());
    }
  }

  /** This task will not acknowledge checkpoint {@code id}: its waiting snapshot is freed. */
  protected void discardPendingSnapshot(long id) {
    PendingSnapshot pending = pendingSnapshots.remove(id);
    if (pending != null) {
      pending.release();
      pendingStatistics.remove(id);
    }
  }

  /** When the first barrier of {@code checkpointId} reached this task; sources: now. */
  protected long firstBarrierMillis(long checkpointId, long now) {
    return now;
  }

  /**
   * Adds in-flight data to the head operator's snapshot (the first one), where it is persisted with
   * the operator state.
   */
  protected static void addChannelState(
      List<OperatorSnapshot> snapshots, Map<String, DefaultOperatorStateStore.RestoredList> lists) {
    if (lists.isEmpty() || snapshots.isEmpty()) {
      return;
    }
    OperatorSnapshot head = snapshots.get(0);
    Map<String, DefaultOperatorStateStore.RestoredList> merged =
        new LinkedHashMap<>(head.operatorLists());
    merged.putAll(lists);
    snapshots.set(
        0, new OperatorSnapshot(head.operatorId(), head.description(), head.keyed(), merged));
  }

  /**
   * Unaligned checkpoints of tasks with inputs keep the snapshot until the in-flight data of every
   * input channel is recorded ({@link #inputChannelStateComplete}); returns true when this one
   * must.
   */
  protected boolean holdForChannelState(ChannelEvent.CheckpointBarrier barrier) {
    return false;
  }

  /** The asynchronous part: writes the snapshots, then acknowledges. */
  protected void uploadAndAcknowledge(long id, List<OperatorSnapshot> snapshots) {
    long[] measured = pendingStatistics.remove(id);
    long[] stats = measured != null ? measured : new long[5];
    long channelBytes = 0;
    if (!snapshots.isEmpty()) {
      for (Map.Entry<String, DefaultOperatorStateStore.RestoredList> e :
          snapshots.get(0).operatorLists().entrySet()) {
        if (e.getKey().startsWith(TaskCheckpointing.CHANNEL_STATE_PREFIX)) {
          for (byte[] b : e.getValue().elements()) {
            channelBytes += b.length;
          }
        }
      }
    }
    long inFlightBytes = channelBytes;
    uploadsInFlight.incrementAndGet();
    try {
      checkpointing.asyncExecutor().execute(() -> upload(id, snapshots, stats, inFlightBytes));
    } catch (RuntimeException e) {
      uploadEnded();
      throw e;
    }
  }

  private void uploadEnded() {
    uploadsInFlight.decrementAndGet();
    waker.signal();
  }

  /** On the snapshot pool: writes the snapshots, then acknowledges or declines the checkpoint. */
  private void upload(long id, List<OperatorSnapshot> snapshots, long[] stats, long inFlightBytes) {
    boolean endedAtSnapshot = stats[4] == 1;
    int vertexIndex = vertex.getIndex();
    int subtask = taskInfo.indexOfThisSubtask();
    long asyncStart = System.nanoTime();
    try {
      Map<String, OperatorSubtaskState> states = new LinkedHashMap<>();
      long stateSize = 0;
      long checkpointedSize = 0;
      for (OperatorSnapshot snapshot : snapshots) {
        OperatorSubtaskState state =
            SubtaskStateCodec.persist(id, snapshot, checkpointing.storage(), endedAtSnapshot);
        states.put(snapshot.operatorId(), state);
        stateSize += state.stateSize();
        checkpointedSize += state.checkpointedSize();
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
                  stats[0],
                  stats[1],
                  stats[3] == 1,
                  inFlightBytes,
                  stats[2],
                  (System.nanoTime() - asyncStart) / 1_000_000,
                  stateSize,
                  checkpointedSize));
    } catch (Throwable t) {
      releaseAll(snapshots);
      if (stopped || cancelled.get()) {
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

  private static OperatorSnapshot snapshotOperator(StreamOperator<?> op, long id, long timestamp)
      throws Exception {
    try {
      return op.snapshotState(id, timestamp);
    } catch (OperatorException | CancelTaskException e) {
      throw e;
    } catch (Exception e) {
      throw new OperatorException(op.getName(), e);
    }
  }

  protected static void releaseAll(List<OperatorSnapshot> snapshots) {
    for (OperatorSnapshot s : snapshots) {
      if (s.keyed() != null) {
        s.keyed().release();
      }
    }
  }

  /** State the task itself holds (a source's splits); added before the operators'. */
  protected void snapshotTaskState(long checkpointId, List<OperatorSnapshot> into)
      throws Exception {}

  protected void notifyCheckpointComplete(long checkpointId) throws Exception {
    for (KeyedStateBackend<?> backend : chain.keyedStateBackends()) {
      backend.notifyCheckpointComplete(checkpointId);
    }
    for (StreamOperator<?> op : chain.operatorsHeadFirst()) {
      callOperator(op, () -> op.notifyCheckpointComplete(checkpointId));
    }
  }

  protected void notifyCheckpointAborted(long checkpointId) throws Exception {
    for (KeyedStateBackend<?> backend : chain.keyedStateBackends()) {
      backend.notifyCheckpointAborted(checkpointId);
    }
    Map<Long, PendingSnapshot> given = pendingSnapshots.headMap(checkpointId, true);
    for (PendingSnapshot pending : given.values()) {
      pending.release();
      pendingStatistics.remove(pending.checkpointId());
    }
    given.clear();
    for (StreamOperator<?> op : chain.operatorsHeadFirst()) {
      callOperator(op, () -> op.notifyCheckpointAborted(checkpointId));
    }
  }

  /** Runs one lifecycle call of an operator, attributing failures to it. */
  protected static void callOperator(StreamOperator<?> op, Mailbox.Mail call) throws Exception {
    try {
      call.run();
    } catch (OperatorException | CancelTaskException e) {
      throw e;
    } catch (Exception e) {
      throw new OperatorException(op.getName(), e);
    }
  }

  private void startBufferFlusher() {
    if (writerArray.length == 0) {
      return;
    }
    Duration timeout = graph.configuration().get(CoreOptions.BUFFER_TIMEOUT);
    if (timeout.isZero()) {
      return; // writers flush after every record
    }
    long millis = Math.max(1, timeout.toMillis());
    flusher =
        timer.scheduleAtFixedRate(
            () -> {
              if (flushPending.compareAndSet(false, true)) {
                mailbox.put(this::flushOutputs);
              }
            },
            millis,
            millis,
            TimeUnit.MILLISECONDS);
  }

  private void flushOutputs() {
    flushPending.set(false);
    for (RecordWriter<?> writer : writerArray) {
      writer.flushAll();
    }
  }

  private void runMailboxLoop() throws Exception {
    while (true) {
      if (mailbox.hasMail()) {
        mailbox.runAll();
      }
      if (cancelled.get()) {
        throw new CancelTaskException();
      }
      if (!outputsAvailable()) {
        waker.await(Long.MAX_VALUE);
        continue;
      }
      InputStatus status = processInput();
      if (status == InputStatus.END_OF_INPUT) {
        return;
      }
      if (status == InputStatus.NOTHING_AVAILABLE) {
        waitForInput();
      }
    }
  }

  private boolean outputsAvailable() {
    for (RecordWriter<?> writer : writerArray) {
      if (!writer.isAvailable()) {
        return false;
      }
    }
    return true;
  }

  /** Prepares the input before the loop starts. */
  protected abstract void initializeInput() throws Exception;

  /** Processes at most a small batch of input; never blocks. */
  protected abstract InputStatus processInput() throws Exception;

  /** Called after NOTHING_AVAILABLE: waits until input may be there, or mail arrives. */
  protected void waitForInput() {
    waker.await(Long.MAX_VALUE);
  }

  /** Releases resources; {@code finished} is false after a failure or cancellation. */
  protected void cleanup(boolean finished) throws Exception {
    if (flusher != null) {
      flusher.cancel(false);
    }
    for (PendingSnapshot pending : pendingSnapshots.values()) {
      pending.release();
    }
    pendingSnapshots.clear();
    Exception first = null;
    if (chain != null) {
      for (StreamOperator<?> op : chain.operatorsHeadFirst()) {
        try {
          op.close();
        } catch (Exception e) {
          if (first == null) {
            first = new OperatorException(op.getName(), e);
          } else {
            first.addSuppressed(e);
          }
        }
      }
    }
    if (chain != null) {
      chain.closeKeyedStateBackends();
    }
    for (RecordWriter<?> writer : writerArray) {
      writer.clear();
    }
    if (first != null && finished) {
      throw first;
    }
  }

  /** The writers of this task, in wiring order. */
  public List<RecordWriter<?>> getWriters() {
    return new ArrayList<>(writers.values());
  }

  @Override
  public String toString() {
    return taskInfo.taskNameWithSubtasks();
  }
}
