package io.weir.runtime.task;

import io.weir.api.config.CoreOptions;
import io.weir.api.functions.TaskInfo;
import io.weir.api.source.InputStatus;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.InFlightData;
import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.metrics.TaskIOMetrics;
import io.weir.runtime.metrics.TimerGauge;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.TaskLocalStateStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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

  /** Why the task was cancelled, when its canceller said; set before {@link #cancelled}. */
  private final AtomicReference<String> cancelReason = new AtomicReference<>();

  private final CompletableFuture<TaskState> termination = new CompletableFuture<>();
  private volatile TaskState state = TaskState.CREATED;
  private volatile Thread thread;

  /**
   * Set when the task stops running, before {@link #cleanup} closes its state: an upload that fails
   * from then on failed because the state was closed under it, not for a reason of its own.
   */
  private volatile boolean stopped;

  protected OperatorChain chain;
  private RecordWriter<?>[] writerArray = new RecordWriter<?>[0];

  /** Sends partly filled buffers within the buffer timeout; made when the task starts. */
  private OutputFlusher flusher;

  protected long numRecordsIn;

  /**
   * Bytes of the buffers this task took from its input channels (Flink's {@code numBytesIn}); a
   * source's stays 0. Task thread writes, per buffer.
   */
  protected long numBytesIn;

  /** What the metrics read: counters the task keeps anyway, and its waits. */
  private final TaskIOMetrics ioMetrics =
      new TaskIOMetrics(
          this::getNumRecordsIn, this::getNumRecordsOut, this::getNumBytesIn, this::getNumBytesOut);

  protected final TaskCheckpointing checkpointing;

  /** Reads what this subtask restores, when it starts, and opens the operators from it. */
  private final TaskStateRestorer restorer;

  /** This subtask's side of the checkpoint protocol. */
  private final SubtaskCheckpointCoordinator checkpoints;

  /**
   * What the checkpoint protocol has done to the input: running, suspended or draining for a
   * stop-with-savepoint, stopped by one, or past the end of input. Task thread.
   */
  private final TaskLifecycle lifecycle = new TaskLifecycle();

  /** Brings the coordinator's triggers, completions and aborts onto the task thread. */
  private final CheckpointNotifier notifier;

  protected StreamTask(
      JobGraph graph,
      JobVertex vertex,
      TaskInfo taskInfo,
      ScheduledExecutorService timer,
      TaskListener listener,
      TaskCheckpointing checkpointing,
      TaskRestore restore) {
    this.restorer = new TaskStateRestorer(restore, ioMetrics);
    this.graph = graph;
    this.vertex = vertex;
    this.taskInfo = taskInfo;
    this.timer = timer;
    this.listener = listener;
    this.checkpointing = checkpointing;
    this.checkpoints =
        new SubtaskCheckpointCoordinator(
            taskInfo,
            vertex,
            checkpointing,
            mailbox,
            waker,
            timer,
            ioMetrics,
            new SubtaskCheckpointCoordinator.Task() {
              @Override
              public void snapshotTaskState(long checkpointId, List<OperatorSnapshot> into)
                  throws Exception {
                StreamTask.this.snapshotTaskState(checkpointId, into);
              }

              @Override
              public List<StreamOperator<?>> operators() {
                return chain.operatorsHeadFirst();
              }

              @Override
              public long firstBarrierMillis(long checkpointId, long now) {
                return StreamTask.this.firstBarrierMillis(checkpointId, now);
              }

              @Override
              public String lastBarrierFrom(long checkpointId) {
                return StreamTask.this.lastBarrierFrom(checkpointId);
              }

              @Override
              public boolean holdForChannelState(ChannelEvent.CheckpointBarrier barrier) {
                return StreamTask.this.holdForChannelState(barrier);
              }

              @Override
              public boolean endOfInput() {
                return lifecycle.inputEnded();
              }

              @Override
              public boolean stopped() {
                return stopped || cancelled.get();
              }
            });
    this.notifier = new CheckpointNotifier(this, checkpointing, checkpoints, lifecycle);
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

  /** What this subtask measures for its metrics; any thread reads it. */
  public TaskIOMetrics ioMetrics() {
    return ioMetrics;
  }

  /** Records this task sent to other tasks (see {@link OperatorChain#recordsOut()}). */
  public long getNumRecordsOut() {
    OperatorChain c = chain;
    return c == null ? 0 : c.recordsOut();
  }

  /** Bytes this task read from its input channels; 0 for a source. */
  public long getNumBytesIn() {
    return numBytesIn;
  }

  /**
   * Bytes this task sent to other tasks, once per channel a buffer went to (see {@link
   * RecordWriter#bytesSent()}); chained operators send none.
   */
  public long getNumBytesOut() {
    long bytes = 0;
    for (RecordWriter<?> writer : writerArray) {
      bytes += writer.bytesSent();
    }
    return bytes;
  }

  /** Wires a network output; before the thread starts. */
  public void addWriter(StreamEdge edge, RecordWriter<?> writer) {
    writer.setBackPressureTimer(ioMetrics.backPressuredTime());
    writers.put(edge, writer);
    writerArray = writers.values().toArray(new RecordWriter<?>[0]);
    checkpoints.setOutputs(writerArray, writers.keySet().toArray(new StreamEdge[0]));
  }

  /**
   * Starts the task's thread, with {@code userClassLoader} (the job's) as its context class loader
   * for all it runs: restoring state, the operators and the user's functions, as Flink's task
   * thread.
   */
  public void start(ClassLoader userClassLoader) {
    Thread t = new Thread(this, taskInfo.taskNameWithSubtasks());
    t.setDaemon(true);
    t.setContextClassLoader(userClassLoader);
    waker.bindTo(t);
    thread = t;
    t.start();
  }

  /** Stops the task as soon as possible; its thread ends with state CANCELED. */
  public void cancel() {
    cancel(null);
  }

  /**
   * Stops the task as soon as possible, for {@code reason} (null: none given); its thread ends with
   * state CANCELED, reporting the first reason given as a {@link CancelTaskException}.
   */
  public void cancel(String reason) {
    if (reason != null) {
      cancelReason.compareAndSet(null, reason);
    }
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
        String reason = cancelReason.get();
        failure = reason == null ? null : new CancelTaskException(reason);
      } else {
        end = TaskState.FAILED;
        failure = wrapFailure(t);
        // Logged once, here, where it happened: the whole cause chain with its frames (the
        // user's among them); the job master is told it as text.
        LOG.warn("{} failed", taskInfo.taskNameWithSubtasks(), t);
      }
    } finally {
      Thread.interrupted(); // clear a cancellation interrupt before cleanup
    }
    stopped = true;
    checkpoints.awaitUploads();
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
    TaskLocalStateStore localState = checkpointing.localState();
    TaskRestore.Read restored = restorer.read(localState);
    chain =
        new OperatorChain(
            graph,
            vertex,
            taskInfo,
            writers,
            new TaskProcessingTimeService(timer, mailbox),
            restored.operators(),
            localState,
            ioMetrics.userMetrics());
    List<StreamOperator<?>> operators = chain.operatorsHeadFirst();
    TaskStateRestorer.openOperators(operators);
    restorer.replayOutputChannelState(writers);
    initializeInput();
    ioMetrics.initialized();
    flusher = new OutputFlusher(writerArray, graph.configuration());
    flusher.start(CoreOptions.bufferTimeout(graph.configuration()), timer, mailbox);
    runMailboxLoop();
    if (lifecycle.phase() == TaskLifecycle.Phase.STOPPED_WITH_SAVEPOINT) {
      // Flink's stop-with-savepoint without drain: no end of input, no final watermark; the
      // savepoint holds everything the job resumes from.
      LOG.info("{} stops after its savepoint", taskInfo.taskNameWithSubtasks());
      return;
    }
    for (StreamOperator<?> op : operators) {
      callOperator(op, op::finish);
    }
    ChannelEvent.CheckpointBarrier drainBarrier = lifecycle.drainBarrier();
    lifecycle.on(new TaskLifecycle.InputEnded());
    for (RecordWriter<?> writer : writerArray) {
      writer.broadcastEvent(ChannelEvent.EndOfData.INSTANCE);
    }
    if (drainBarrier != null) {
      // Stop with drain: the savepoint's barrier follows the end of data (and the final watermark
      // it implies) downstream, and its completion ends the job.
      performCheckpoint(drainBarrier);
    } else if (checkpointing.enabled()) {
      // A bounded input ends with a final checkpoint, so that two-phase-commit sinks commit
      // everything they wrote before the job finishes.
      checkpointing.responder().reachedEndOfInput(vertex.getIndex(), taskInfo.indexOfThisSubtask());
    }
    runFinalPhase();
    for (RecordWriter<?> writer : writerArray) {
      writer.broadcastEvent(ChannelEvent.EndOfPartition.INSTANCE);
    }
  }

  /** The restored state, read when the task started: operators, channel state, splits. */
  protected TaskRestore.Read restored() {
    return restorer.restored();
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
    return isInputClosed() && lifecycle.mayFinish(checkpointing.enabled());
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
    triggerCheckpointAsync(
        checkpointId, timestamp, CheckpointOptions.checkpoint(checkpointing.alignment()));
  }

  /**
   * From the coordinator, any thread: a source takes checkpoint or savepoint {@code id} (see {@link
   * CheckpointNotifier#triggerCheckpoint}).
   */
  public void triggerCheckpointAsync(long checkpointId, long timestamp, CheckpointOptions options) {
    notifier.triggerCheckpoint(checkpointId, timestamp, options);
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
    notifier.checkpointComplete(checkpointId, isFinal);
  }

  /** From the coordinator, any thread. */
  public void notifyCheckpointAbortedAsync(long checkpointId) {
    notifier.checkpointAborted(checkpointId);
  }

  /**
   * True while a source waits for its stop-with-savepoint to complete: it emits nothing, not even
   * watermarks, after the savepoint's barrier. Task thread.
   */
  protected boolean isSuspendedForSavepoint() {
    return lifecycle.suspended();
  }

  /** Takes this task's snapshot for {@code barrier} and forwards the barrier. Task thread. */
  protected void performCheckpoint(ChannelEvent.CheckpointBarrier barrier) throws Exception {
    checkpoints.checkpoint(barrier);
  }

  /**
   * The input channels' in-flight data of checkpoint {@code id} is complete; ignored when the
   * checkpoint was given up meanwhile.
   */
  protected void inputChannelStateComplete(long id, InFlightData recorded) {
    checkpoints.inputChannelStateComplete(id, recorded);
  }

  /** This task will not acknowledge checkpoint {@code id}: its waiting snapshot is freed. */
  protected void discardPendingSnapshot(long id) {
    checkpoints.discardPendingSnapshot(id);
  }

  /** When the first barrier of {@code checkpointId} reached this task; sources: now. */
  protected long firstBarrierMillis(long checkpointId, long now) {
    return now;
  }

  /** The producer of the channel whose barrier of {@code checkpointId} came last; sources: null. */
  protected String lastBarrierFrom(long checkpointId) {
    return null;
  }

  /**
   * Unaligned checkpoints of tasks with inputs keep the snapshot until the in-flight data of every
   * input channel is recorded ({@link #inputChannelStateComplete}); returns true when this one
   * must.
   */
  protected boolean holdForChannelState(ChannelEvent.CheckpointBarrier barrier) {
    return false;
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
    checkpoints.checkpointAborted(checkpointId);
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

  private void runMailboxLoop() throws Exception {
    while (true) {
      if (mailbox.hasMail()) {
        mailbox.runAll();
      }
      if (cancelled.get()) {
        throw new CancelTaskException();
      }
      if (lifecycle.leavesInputLoop()) {
        return;
      }
      if (lifecycle.suspended() || !outputsAvailable()) {
        // Time counted once per wait, never per record; suspended for a savepoint is idle.
        TimerGauge waiting =
            lifecycle.suspended() ? ioMetrics.idleTime() : ioMetrics.backPressuredTime();
        waiting.markStart(System.nanoTime());
        waker.await(Long.MAX_VALUE);
        waiting.markEnd(System.nanoTime());
        continue;
      }
      InputStatus status = processInput();
      if (status == InputStatus.END_OF_INPUT) {
        return;
      }
      if (status == InputStatus.NOTHING_AVAILABLE) {
        flusher.inputIdle();
        ioMetrics.idleTime().markStart(System.nanoTime());
        try {
          waitForInput();
        } finally {
          ioMetrics.idleTime().markEnd(System.nanoTime());
        }
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
      flusher.stop();
    }
    checkpoints.releasePending();
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
