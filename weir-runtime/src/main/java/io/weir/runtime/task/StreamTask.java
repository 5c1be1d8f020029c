package io.weir.runtime.task;

import io.weir.api.config.CoreOptions;
import io.weir.api.functions.TaskInfo;
import io.weir.api.source.InputStatus;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.StreamOperator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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

  protected OperatorChain chain;
  private RecordWriter<?>[] writerArray = new RecordWriter<?>[0];
  private ScheduledFuture<?> flusher;
  private final AtomicBoolean flushPending = new AtomicBoolean();
  protected long numRecordsIn;
  protected long numRecordsOut;

  protected StreamTask(
      JobGraph graph,
      JobVertex vertex,
      TaskInfo taskInfo,
      ScheduledExecutorService timer,
      TaskListener listener) {
    this.graph = graph;
    this.vertex = vertex;
    this.taskInfo = taskInfo;
    this.timer = timer;
    this.listener = listener;
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
        LOG.warn("{} failed", taskInfo.taskNameWithSubtasks(), t);
      }
    } finally {
      Thread.interrupted(); // clear a cancellation interrupt before cleanup
    }
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
            graph, vertex, taskInfo, writers, new TaskProcessingTimeService(timer, mailbox));
    List<StreamOperator<?>> operators = chain.operatorsHeadFirst();
    for (int i = operators.size() - 1; i >= 0; i--) {
      StreamOperator<?> op = operators.get(i);
      callOperator(op, op::initializeState);
      callOperator(op, op::open);
    }
    initializeInput();
    startBufferFlusher();
    runMailboxLoop();
    for (StreamOperator<?> op : operators) {
      callOperator(op, op::finish);
    }
    endInput();
    for (RecordWriter<?> writer : writerArray) {
      writer.broadcastEvent(ChannelEvent.EndOfPartition.INSTANCE);
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

  /** All input consumed and operators finished; called before end-of-partition is sent. */
  protected void endInput() throws Exception {}

  /** Releases resources; {@code finished} is false after a failure or cancellation. */
  protected void cleanup(boolean finished) throws Exception {
    if (flusher != null) {
      flusher.cancel(false);
    }
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
