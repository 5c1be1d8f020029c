package io.weir.cluster.jobmanager;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.rpc.ControlPlane;
import io.weir.cluster.rpc.JobManagerHeartbeat;
import io.weir.cluster.rpc.LeaderEpochFence;
import io.weir.cluster.rpc.Secrets;
import io.weir.cluster.rpc.TaskManagerServiceGrpc;
import io.weir.cluster.rpc.TaskManagerStatus;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's view of its TaskManagers: who registered with how many slots, which slots each
 * job holds, and whether each is alive. It heartbeats every TaskManager each {@code
 * heartbeat.interval} and declares one lost when its connection fails, when nothing was heard from
 * it for {@code heartbeat.timeout}, or when it answered none of these heartbeats for as long (its
 * own heartbeats still arriving: the connection to it is broken one way); the jobs running there
 * are told (see {@link #onLost}).
 *
 * <p>Slots: a job attempt needs as many slots as its widest vertex (a slot runs one subtask of
 * every vertex, as Flink's slot sharing does: slot i runs subtask i of each vertex), taken from one
 * or more TaskManagers — packed onto as few as possible, or spread over as many as possible with
 * {@code cluster.evenly-spread-out-slots} (see {@link SlotPlacement}). Channels between subtasks on
 * one TaskManager are local, the others cross the data plane. Requests wait up to {@code
 * slot.request.timeout}. Thread safe; guarded by this object.
 */
public final class TaskManagerRegistry implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TaskManagerRegistry.class);

  /** A registered TaskManager. */
  public static final class TaskManager {
    final String id;
    final String host;
    final int port;
    final int dataPort;
    final int slots;
    final ManagedChannel channel;
    final TaskManagerServiceGrpc.TaskManagerServiceFutureStub stub;
    final Map<String, Integer> slotsByAllocation = new LinkedHashMap<>();

    /**
     * High availability: the subtasks it kept running for this leader to adopt when it registered,
     * and those of the same jobs that had ended.
     */
    final Set<ExecutionAttemptId> offered;

    final Set<ExecutionAttemptId> offeredEnded;

    /** When it was last heard from: its own heartbeat, or its answer to the JobManager's. */
    volatile long lastHeard = System.nanoTime();

    /**
     * When it last answered a heartbeat of the JobManager's: its own heartbeats arriving say
     * nothing of whether the JobManager's calls reach it (a connection broken one way).
     */
    volatile long lastAnswered = System.nanoTime();

    volatile TaskManagerStatus status = TaskManagerStatus.getDefaultInstance();
    volatile boolean lost;

    TaskManager(
        String id,
        String host,
        int port,
        int dataPort,
        int slots,
        Set<ExecutionAttemptId> offered,
        Set<ExecutionAttemptId> offeredEnded,
        String secret,
        LongSupplier epoch) {
      this.id = id;
      this.offered = Set.copyOf(offered);
      this.offeredEnded = Set.copyOf(offeredEnded);
      this.host = host;
      this.port = port;
      this.dataPort = dataPort;
      this.slots = slots;
      this.channel =
          ControlPlane.channel(host, port)
              .intercept(Secrets.client(secret), LeaderEpochFence.client(epoch), Secrets.detached())
              .maxInboundMessageSize(64 << 20)
              .build();
      this.stub = TaskManagerServiceGrpc.newFutureStub(channel);
    }

    public String id() {
      return id;
    }

    public int slots() {
      return slots;
    }

    /** What it said at the last heartbeat: its running tasks, loaded jobs and output buffers. */
    public TaskManagerStatus status() {
      return status;
    }

    public String address() {
      return host + ":" + port;
    }

    /** The port its data plane is reached at, on the host of {@link #address()}. */
    public int dataPort() {
      return dataPort;
    }

    /** Where its data plane is reached. */
    String dataAddress() {
      return host + ":" + dataPort;
    }

    public synchronized int freeSlots() {
      return slots - slotsByAllocation.values().stream().mapToInt(Integer::intValue).sum();
    }

    @Override
    public String toString() {
      return "TaskManager " + id + " at " + address();
    }
  }

  private record Request(
      String allocationId,
      String jobName,
      int slots,
      CompletableFuture<SlotPlacement<TaskManager>> future) {}

  private final String secret;

  /** The epoch this JobManager leads with, sent with every call (0: none, no high availability). */
  private final LongSupplier leaderEpoch;

  private final Duration interval;
  private final Duration timeout;
  private final ScheduledExecutorService timer;
  private final Map<String, TaskManager> taskManagers = new LinkedHashMap<>();
  private final List<Request> pending = new ArrayList<>();
  private final List<BiConsumer<TaskManager, String>> lostListeners = new CopyOnWriteArrayList<>();
  private final List<Runnable> registrationListeners = new CopyOnWriteArrayList<>();

  private final boolean spreadOut;

  TaskManagerRegistry(
      String secret,
      Duration interval,
      Duration timeout,
      boolean spreadOut,
      ScheduledExecutorService timer,
      LongSupplier leaderEpoch) {
    this.secret = secret;
    this.leaderEpoch = leaderEpoch;
    this.spreadOut = spreadOut;
    this.interval = interval;
    this.timeout = timeout;
    this.timer = timer;
    var unused =
        timer.scheduleWithFixedDelay(
            this::heartbeatAll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Builds and drops one client channel, so that gRPC's client classes (its load-balancer and
   * name-resolver registries, found through {@link java.util.ServiceLoader}) are loaded before a
   * TaskManager registers: a standby that becomes the leader would otherwise spend 0.5-2 s of its
   * failover loading them on the first registration, with the next ones waiting on its class locks.
   */
  static void warmUpClients() {
    ControlPlane.channel("127.0.0.1", 1).build().shutdownNow();
  }

  /** {@code listener} hears of every TaskManager lost, with the reason. */
  void onLost(BiConsumer<TaskManager, String> listener) {
    lostListeners.add(listener);
  }

  /**
   * {@code listener} runs after every registration, until it is removed with the returned action.
   */
  Runnable onRegistered(Runnable listener) {
    registrationListeners.add(listener);
    return () -> registrationListeners.remove(listener);
  }

  /**
   * Registers a TaskManager; one that registers again under its id replaces its old self. Under
   * high availability it offers {@code offered}, subtasks it kept running after it lost the
   * previous leader ({@code offeredEnded}: those of the same jobs that ended meanwhile).
   */
  void register(
      String id,
      String host,
      int port,
      int dataPort,
      int slots,
      Set<ExecutionAttemptId> offered,
      Set<ExecutionAttemptId> offeredEnded) {
    TaskManager previous;
    TaskManager tm =
        new TaskManager(
            id, host, port, dataPort, slots, offered, offeredEnded, secret, leaderEpoch);
    synchronized (this) {
      previous = taskManagers.put(id, tm);
    }
    if (previous != null) {
      lost(previous, "it registered again (it restarted or lost the JobManager)");
    }
    LOG.info(
        "TaskManager {} registered at {} with {} slots{}",
        id,
        tm.address(),
        slots,
        offered.isEmpty() ? "" : ", offering " + offered.size() + " running tasks");
    fulfil();
    registrationListeners.forEach(Runnable::run);
  }

  /**
   * Records that {@code allocationId} holds {@code slots} slots of {@code tm}: those of running
   * tasks this leader adopted.
   */
  void adoptSlots(String allocationId, TaskManager tm, int slots) {
    synchronized (tm) {
      tm.slotsByAllocation.merge(allocationId, slots, Integer::sum);
    }
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

  public synchronized List<TaskManager> taskManagers() {
    return List.copyOf(taskManagers.values());
  }

  synchronized TaskManager get(String id) {
    return taskManagers.get(id);
  }

  /**
   * {@code slots} slots for {@code allocationId} on one or more TaskManagers, when enough are free,
   * within {@code waitMillis}; otherwise the future fails with a {@link NoResourceException}.
   */
  CompletableFuture<SlotPlacement<TaskManager>> requestSlots(
      String allocationId, String jobName, int slots, long waitMillis) {
    CompletableFuture<SlotPlacement<TaskManager>> future = new CompletableFuture<>();
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
                              + " slots (its widest vertex) but the TaskManagers had fewer free"
                              + " within "
                              + waitMillis
                              + " ms ("
                              + ClusterOptions.SLOT_REQUEST_TIMEOUT.key()
                              + "); "
                              + offer
                              + ". Start more TaskManagers (or give them more --slots), or lower"
                              + " the job's parallelism."));
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
        SlotPlacement<TaskManager> placement = place(r.slots);
        if (placement == null) {
          continue;
        }
        for (SlotPlacement.Share<TaskManager> share : placement.shares()) {
          synchronized (share.taskManager()) {
            share.taskManager().slotsByAllocation.put(r.allocationId, share.slots());
          }
        }
        it.remove();
        completions.add(() -> r.future.complete(placement));
      }
    }
    completions.forEach(Runnable::run);
  }

  /**
   * Where {@code slots} free slots are, or null when there are not enough (see {@link
   * SlotPlacement}).
   */
  private SlotPlacement<TaskManager> place(int slots) {
    List<SlotPlacement.Offer<TaskManager>> offers = new ArrayList<>();
    for (TaskManager tm : taskManagers.values()) {
      if (!tm.lost && tm.freeSlots() > 0) {
        offers.add(new SlotPlacement.Offer<>(tm, tm.freeSlots()));
      }
    }
    return SlotPlacement.place(slots, offers, spreadOut);
  }

  private void heartbeatAll() {
    long now = System.nanoTime();
    for (TaskManager tm : taskManagers()) {
      long silentMillis = TimeUnit.NANOSECONDS.toMillis(now - tm.lastHeard);
      long unansweredMillis = TimeUnit.NANOSECONDS.toMillis(now - tm.lastAnswered);
      if (silentMillis > timeout.toMillis()) {
        lost(tm, "no heartbeat for " + silentMillis + " ms (" + timeoutSetting() + ")");
        continue;
      }
      // Broken one way only while its own heartbeats still come (within two intervals): a process
      // that stopped falls silent both ways, a moment apart, and is lost as silent when nothing
      // was heard for the timeout.
      if (unansweredMillis > timeout.toMillis() && silentMillis <= 2 * interval.toMillis()) {
        lost(
            tm,
            "its heartbeats arrive, but it answered none of the JobManager's for "
                + unansweredMillis
                + " ms ("
                + timeoutSetting()
                + "): the connection from the JobManager to it is broken one way");
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
              tm.lastAnswered = tm.lastHeard;
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

  private String timeoutSetting() {
    return ClusterOptions.HEARTBEAT_TIMEOUT.key() + " = " + timeout.toMillis();
  }

  /**
   * Declares {@code tm} lost: its slots are gone and its jobs are told. It stays registered (its
   * heartbeats are still "known") until the jobs have recorded why, so that the TaskManager, which
   * cancels its tasks once it hears it is unknown, cannot report that cancellation first and hide
   * the reason.
   */
  void lost(TaskManager tm, String reason) {
    synchronized (this) {
      if (tm.lost) {
        return;
      }
      tm.lost = true;
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
    synchronized (this) {
      taskManagers.remove(tm.id, tm);
    }
  }

  /**
   * Forgets every TaskManager and slot request: this JobManager no longer leads. The TaskManagers
   * hear that they are unknown at their next heartbeat and register with the new leader.
   */
  void forgetAll() {
    String reason = "this JobManager no longer leads the cluster";
    for (TaskManager tm : taskManagers()) {
      lost(tm, reason);
    }
    List<Request> dropped;
    synchronized (this) {
      dropped = new ArrayList<>(pending);
      pending.clear();
    }
    dropped.forEach(r -> r.future.completeExceptionally(new IllegalStateException(reason)));
  }

  /**
   * Runs {@code done} once {@code call} succeeded, else {@code failed} with the cause (also when
   * {@code done} throws), on the thread that completes the call.
   */
  static void whenDone(ListenableFuture<?> call, Runnable done, Consumer<Throwable> failed) {
    call.addListener(
        () -> {
          try {
            call.get();
            done.run();
          } catch (Exception e) {
            failed.accept(e.getCause() != null ? e.getCause() : e);
          }
        },
        Runnable::run);
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
