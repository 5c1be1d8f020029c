package io.weir.cluster.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.weir.cluster.rpc.ControlPlane;
import io.weir.cluster.rpc.JobManagerHeartbeat;
import io.weir.cluster.rpc.TaskManagerServiceGrpc;
import io.weir.cluster.rpc.TaskManagerStatus;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** How the JobManager tells a TaskManager it cannot reach from one it can. */
class TaskManagerRegistryTest {

  private static final Duration INTERVAL = Duration.ofMillis(100);
  private static final Duration TIMEOUT = Duration.ofMillis(1000);

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final ScheduledExecutorService taskManagerHeartbeats =
      Executors.newSingleThreadScheduledExecutor();

  /** Calls taken and never answered: the server cancels them when it stops. */
  private final List<StreamObserver<TaskManagerStatus>> unanswered = new CopyOnWriteArrayList<>();

  private final AtomicInteger answered = new AtomicInteger();
  private Server server;

  /** gRPC's client classes load before the clock runs: a cold first call may take most of it. */
  @BeforeAll
  static void warmUp() {
    TaskManagerRegistry.warmUpClients();
  }

  @AfterEach
  void stop() {
    taskManagerHeartbeats.shutdownNow();
    timer.shutdownNow();
    if (server != null) {
      server.shutdownNow();
    }
  }

  /** A TaskManager's control port that answers the JobManager's heartbeats, or takes them only. */
  private int taskManagerPort(boolean answers) throws Exception {
    server =
        ControlPlane.server(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .addService(
                new TaskManagerServiceGrpc.TaskManagerServiceImplBase() {
                  @Override
                  public void heartbeat(
                      JobManagerHeartbeat request, StreamObserver<TaskManagerStatus> response) {
                    if (answers) {
                      answered.incrementAndGet();
                      response.onNext(TaskManagerStatus.getDefaultInstance());
                      response.onCompleted();
                    } else {
                      unanswered.add(response);
                    }
                  }
                })
            .build()
            .start();
    return server.getPort();
  }

  /**
   * Registers a TaskManager at {@code port} whose own heartbeats keep arriving, as over a
   * connection that works that way; returns what the registry says when it declares it lost.
   */
  private CompletableFuture<String> registerHeardTaskManager(
      TaskManagerRegistry registry, int port) {
    CompletableFuture<String> lost = new CompletableFuture<>();
    registry.onLost((tm, reason) -> lost.complete(tm + " was lost: " + reason));
    registry.register("tm-1", "127.0.0.1", port, 1, 1, Set.of(), Set.of());
    var unused =
        taskManagerHeartbeats.scheduleWithFixedDelay(
            () -> registry.heard("tm-1"), 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    return lost;
  }

  @Test
  void aTaskManagerWhoseHeartbeatsArriveButWhichAnswersNoneOfTheJobManagersIsLost()
      throws Exception {
    int port = taskManagerPort(false);
    try (TaskManagerRegistry registry =
        new TaskManagerRegistry(null, INTERVAL, TIMEOUT, false, timer, () -> 0)) {
      long start = System.nanoTime();
      String reason = registerHeardTaskManager(registry, port).get(10, TimeUnit.SECONDS);
      long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertThat(reason)
          .contains("TaskManager tm-1 at 127.0.0.1:" + port + " was lost")
          .contains("answered none of the JobManager's")
          .contains("heartbeat.timeout = 1000")
          .contains("broken one way");
      assertThat(elapsedMillis).as("lost at the timeout, not before").isGreaterThan(1000);
    }
  }

  /**
   * A TaskManager that stops (SIGSTOP) answers nothing and sends nothing, its last heartbeat a
   * little after its last answer: it is silent, not a link broken one way, whichever went quiet
   * first.
   */
  @Test
  void aTaskManagerWhoseHeartbeatsStopSoonAfterItsAnswersIsLostAsSilent() throws Exception {
    int port = taskManagerPort(false);
    try (TaskManagerRegistry registry =
        new TaskManagerRegistry(null, INTERVAL, TIMEOUT, false, timer, () -> 0)) {
      CompletableFuture<String> lost = registerHeardTaskManager(registry, port);
      // Its heartbeats stop 300 ms after it stopped answering (it never answered here).
      var unused =
          taskManagerHeartbeats.schedule(
              () -> taskManagerHeartbeats.shutdownNow(), 300, TimeUnit.MILLISECONDS);

      String reason = lost.get(10, TimeUnit.SECONDS);

      assertThat(reason).contains("no heartbeat for").doesNotContain("broken one way");
    }
  }

  @Test
  void aTaskManagerThatAnswersIsNotLost() throws Exception {
    int port = taskManagerPort(true);
    try (TaskManagerRegistry registry =
        new TaskManagerRegistry(null, INTERVAL, TIMEOUT, false, timer, () -> 0)) {
      CompletableFuture<String> lost = registerHeardTaskManager(registry, port);
      // Two timeouts' worth of answered heartbeats, on the registry's own timer.
      int enough = (int) (2 * TIMEOUT.toMillis() / INTERVAL.toMillis());
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> answered.get() >= enough);
      assertThat(lost).isNotDone();
    }
  }

  /**
   * A TaskManager hears it is unknown only after the jobs heard why it was lost: told earlier, it
   * would cancel its tasks and report that first, hiding the reason (found by
   * ClusterSlowAndOneWayLinksIT in a CI run).
   */
  @Test
  void aLostTaskManagerStaysKnownUntilItsJobsHeardWhy() throws Exception {
    int port = taskManagerPort(true);
    try (TaskManagerRegistry registry =
        new TaskManagerRegistry(null, INTERVAL, TIMEOUT, false, timer, () -> 0)) {
      CompletableFuture<Boolean> knownWhileTold = new CompletableFuture<>();
      registry.onLost((tm, reason) -> knownWhileTold.complete(registry.heard(tm.id)));
      registry.register("tm-1", "127.0.0.1", port, 1, 1, Set.of(), Set.of());
      var tm = registry.taskManagers().get(0);

      registry.lost(tm, "a test says so");

      assertThat(knownWhileTold).isCompletedWithValue(true);
      assertThat(registry.heard("tm-1")).as("unknown once the jobs heard").isFalse();
      assertThat(registry.taskManagers()).isEmpty();
    }
  }
}
