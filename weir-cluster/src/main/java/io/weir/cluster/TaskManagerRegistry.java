package io.weir.cluster;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.weir.cluster.rpc.JobManagerHeartbeat;
import io.weir.cluster.rpc.TaskManagerServiceGrpc;
import io.weir.cluster.rpc.TaskManagerStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's view of its TaskManagers: who registered with how many slots, which slots each
 * job holds, and whether each is alive. It heartbeats every TaskManager each {@code
 * heartbeat.interval} and declares one lost when its connection fails or nothing was heard from it
 * for {@code heartbeat.timeout}; the jobs running there are told (see {@link #onLost}).
 *
 * <p>Slots: a job attempt needs as many slots as its widest vertex (a slot runs one subtask of
 * every vertex, as Flink's slot sharing does), all on one TaskManager, because channels between
 * tasks are local channels within one TaskManager. Requests wait up to {@code
 * slot.request.timeout}. Thread safe; guarded by this object.
 */
final class TaskManagerRegistry implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TaskManagerRegistry.class);

  /** A registered TaskManager. */
  static final class TaskManager {
    final String id;
    final String host;
    final int port;
    final int slots;
    final ManagedChannel channel;
    final TaskManagerServiceGrpc.TaskManagerServiceFutureStub stub;
    final Map<String, Integer> slotsByAllocation = new LinkedHashMap<>();
    volatile long lastHeard = System.nanoTime();
    volatile TaskManagerStatus status = TaskManagerStatus.getDefaultInstance();
    volatile boolean lost;

    TaskManager(String id, String host, int port, int slots, String secret) {
      this.id = id;
      this.host = host;
      this.port = port;
      this.slots = slots;
      this.channel =
          NettyChannelBuilder.forAddress(host, port)
              .usePlaintext()
              .intercept(Secrets.client(secret), Secrets.detached())
              .maxInboundMessageSize(64 << 20)
              .build();
      this.stub = TaskManagerServiceGrpc.newFutureStub(channel);
    }

    String address() {
      return host + ":" + port;
    }

    synchronized int freeSlots() {
      return slots - slotsByAllocation.values().stream().mapToInt(Integer::intValue).sum();
    }

    @Override
    public String toString() {
      return "TaskManager " + id + " at " + address();
    }
  }

  private record Request(
      String allocationId, String jobName, int slots, CompletableFuture<TaskManager> future) {}

  private final String secret;
  private final Duration timeout;
  private final ScheduledExecutorService timer;
  private final Map<String, TaskManager> taskManagers = new LinkedHashMap<>();
  private final List<Request> pending = new ArrayList<>();
  private final List<BiConsumer<TaskManager, String>> lostListeners = new CopyOnWriteArrayList<>();

  TaskManagerRegistry(
      String secret, Duration interval, Duration timeout, ScheduledExecutorService timer) {
    this.secret = secret;
    this.timeout = timeout;
    this.timer = timer;
    var unused =
        timer.scheduleWithFixedDelay(
            this::heartbeatAll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** {@code listener} hears of every TaskManager lost, with the reason. */
  void onLost(BiConsumer<TaskManager, String> listener) {
    lostListeners.add(listener);
  }

  /** Registers a TaskManager; one that registers again under its id replaces its old self. */
  void register(String id, String host, int port, int slots) {
    TaskManager previous;
    TaskManager tm = new TaskManager(id, host, port, slots, secret);
    synchronized (this) {
      previous = taskManagers.put(id, tm);
    }
    if (previous != null) {
      lost(previous, "it registered again (it restarted or lost the JobManager)");
    }
    LOG.info("TaskManager {} registered at {} with {} slots", id, tm.address(), slots);
    fulfil();
  }

  /** A heartbeat from a TaskManager; false if it is not registered. */
  boolean heard(String id) {
    TaskManager tm;
    synchronized (this) {
      tm = taskManagers.get(id);
    }
    if (tm == null) {
      return false;
    }
    tm.lastHeard = System.nanoTime();
    return true;
  }

  synchronized List<TaskManager> taskManagers() {
    return List.copyOf(taskManagers.values());
  }

  synchronized TaskManager get(String id) {
    return taskManagers.get(id);
  }

  /**
   * Slots for {@code allocationId} on one TaskManager, when enough are free, within {@code
   * waitMillis}; otherwise the future fails with a {@link NoResourceException}.
   */
  CompletableFuture<TaskManager> requestSlots(
      String allocationId, String jobName, int slots, long waitMillis) {
    CompletableFuture<TaskManager> future = new CompletableFuture<>();
    Request request = new Request(allocationId, jobName, slots, future);
    synchronized (this) {
      pending.add(request);
    }
    fulfil();
    if (!future.isDone()) {
      var unused =
          timer.schedule(
              () -> {
                boolean removed;
                String offer;
                synchronized (this) {
                  removed = pending.remove(request);
                  offer = describeSlots();
                }
                if (removed) {
                  future.completeExceptionally(
                      new NoResourceException(
                          "Job '"
                              + jobName
                              + "' needs "
                              + slots
                              + " slots on one TaskManager (its widest vertex) but none became free"
                              + " within "
                              + waitMillis
                              + " ms ("
                              + ClusterOptions.SLOT_REQUEST_TIMEOUT
                              + "); "
                              + offer
                              + ". Start a TaskManager with --slots "
                              + slots
                              + " or more, or lower the job's parallelism."));
                }
              },
              waitMillis,
              TimeUnit.MILLISECONDS);
    }
    return future;
  }

  private String describeSlots() {
    if (taskManagers.isEmpty()) {
      return "no TaskManager is registered";
    }
    List<String> parts = new ArrayList<>();
    for (TaskManager tm : taskManagers.values()) {
      parts.add(tm.id + " has " + tm.freeSlots() + " of " + tm.slots + " free");
    }
    return String.join(", ", parts);
  }

  /** Cancels a pending request; true if it was still pending. */
  synchronized boolean cancelRequest(String allocationId) {
    return pending.removeIf(r -> r.allocationId.equals(allocationId));
  }

  /** Frees the slots of {@code allocationId}. */
  void release(String allocationId) {
    synchronized (this) {
      for (TaskManager tm : taskManagers.values()) {
        synchronized (tm) {
          tm.slotsByAllocation.remove(allocationId);
        }
      }
    }
    fulfil();
  }

  private void fulfil() {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      for (Iterator<Request> it = pending.iterator(); it.hasNext(); ) {
        Request r = it.next();
        for (TaskManager tm : taskManagers.values()) {
          if (!tm.lost && tm.freeSlots() >= r.slots) {
            synchronized (tm) {
              tm.slotsByAllocation.put(r.allocationId, r.slots);
            }
            it.remove();
            completions.add(() -> r.future.complete(tm));
            break;
          }
        }
      }
    }
    completions.forEach(Runnable::run);
  }

  private void heartbeatAll() {
    long now = System.nanoTime();
    for (TaskManager tm : taskManagers()) {
      long silentMillis = TimeUnit.NANOSECONDS.toMillis(now - tm.lastHeard);
      if (silentMillis > timeout.toMillis()) {
        lost(
            tm,
            "no heartbeat for "
                + silentMillis
                + " ms ("
                + ClusterOptions.HEARTBEAT_TIMEOUT
                + " = "
                + timeout.toMillis()
                + ")");
        continue;
      }
      var call =
          tm.stub
              .withDeadlineAfter(Math.max(1000, timeout.toMillis()), TimeUnit.MILLISECONDS)
              .heartbeat(JobManagerHeartbeat.getDefaultInstance());
      call.addListener(
          () -> {
            try {
              tm.status = call.get();
              tm.lastHeard = System.nanoTime();
            } catch (Exception e) {
              Status status = Status.fromThrowable(e);
              if (status.getCode() == Status.Code.UNAVAILABLE) {
                lost(tm, "its connection failed (" + status.getDescription() + ")");
              } else {
                LOG.debug("Heartbeat to {} failed: {}", tm, status);
              }
            }
          },
          Runnable::run);
    }
  }

  /** Declares {@code tm} lost: its slots are gone and its jobs are told. */
  void lost(TaskManager tm, String reason) {
    synchronized (this) {
      if (tm.lost) {
        return;
      }
      tm.lost = true;
      taskManagers.remove(tm.id, tm);
    }
    LOG.warn("{} is lost: {}", tm, reason);
    tm.channel.shutdownNow();
    for (BiConsumer<TaskManager, String> listener : lostListeners) {
      try {
        listener.accept(tm, reason);
      } catch (RuntimeException e) {
        LOG.warn("Handling the loss of {} failed", tm, e);
      }
    }
  }

  /** Whether {@code e} says the peer cannot be reached. */
  static boolean unreachable(Throwable e) {
    return e instanceof StatusRuntimeException s
        ? s.getStatus().getCode() == Status.Code.UNAVAILABLE
        : Status.fromThrowable(e).getCode() == Status.Code.UNAVAILABLE;
  }

  @Override
  public synchronized void close() {
    for (TaskManager tm : taskManagers.values()) {
      tm.channel.shutdownNow();
    }
    taskManagers.clear();
  }

  /** Not enough slots within the bounded wait; restarting would not help. */
  static final class NoResourceException extends Exception
      implements io.weir.runtime.recovery.NonRecoverable {
    private static final long serialVersionUID = 1L;

    NoResourceException(String message) {
      super(message);
    }
  }
}
