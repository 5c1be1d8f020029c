package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointStatistics;
import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CheckpointCoordinator.OperatorInfo;
import io.weir.runtime.checkpoint.CheckpointCoordinator.TaskKey;
import io.weir.runtime.storage.CheckpointHistoryFormat;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.JobManagerCheckpointStorage;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint coordinator driven by hand: a manual clock, timers that fire only when the test
 * moves the clock, and a record of every message to the tasks.
 */
class CheckpointCoordinatorTest {

  private static final String JOB = "0123456789abcdef0123456789abcdef";
  private static final long START = 100_000;
  private static final long INTERVAL = 1_000;
  private static final long TIMEOUT = 10_000;

  // A job of two vertices: a source with parallelism 2 and a sink with parallelism 1.
  private static final TaskKey SOURCE_0 = new TaskKey(0, 0);
  private static final TaskKey SOURCE_1 = new TaskKey(0, 1);
  private static final TaskKey SINK_0 = new TaskKey(1, 0);
  private static final Set<TaskKey> TASKS = Set.of(SOURCE_0, SOURCE_1, SINK_0);
  private static final List<OperatorInfo> OPERATORS =
      List.of(
          new OperatorInfo("source-uid", "Source", 0, 2, 128),
          new OperatorInfo("sink-uid", "Sink", 1, 1, 128));

  private final ManualContext context = new ManualContext();
  private final JobManagerCheckpointStorage storage = new JobManagerCheckpointStorage();

  /** The settings of most tests; each changes what it is about. */
  private static CheckpointSettings settings(
      long minPause, int maxConcurrent, int tolerableFailures, int numRetained) {
    return new CheckpointSettings(
        INTERVAL, TIMEOUT, minPause, maxConcurrent, tolerableFailures, numRetained);
  }

  private CheckpointCoordinator started(CheckpointSettings settings) {
    return started(settings, storage);
  }

  private CheckpointCoordinator started(CheckpointSettings settings, CheckpointStorage storage) {
    CheckpointCoordinator coordinator =
        new CheckpointCoordinator(JOB, settings, OPERATORS, storage, context, 0, List.of());
    coordinator.setTasks(TASKS);
    coordinator.start();
    return coordinator;
  }

  /** The state a task reports: distinct per checkpoint and task, written through the storage. */
  private final Map<String, OperatorSubtaskState> stateHandles = new HashMap<>();

  private OperatorSubtaskState state(long checkpointId, TaskKey task) throws IOException {
    String key = checkpointId + "/" + task;
    OperatorSubtaskState existing = stateHandles.get(key);
    if (existing != null) {
      return existing;
    }
    StreamStateHandle handle =
        storage.writeState(
            checkpointId,
            new byte[] {(byte) checkpointId, (byte) task.vertex(), (byte) task.subtask()},
            "state of " + task);
    OperatorSubtaskState s =
        new OperatorSubtaskState(null, new OperatorStateHandle(Map.of(), handle), false);
    stateHandles.put(key, s);
    return s;
  }

  private void ack(CheckpointCoordinator coordinator, long checkpointId, TaskKey task)
      throws IOException {
    String operator = task.vertex() == 0 ? "source-uid" : "sink-uid";
    coordinator.acknowledge(task, checkpointId, Map.of(operator, state(checkpointId, task)));
  }

  private void ackAll(CheckpointCoordinator coordinator, long checkpointId) throws IOException {
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      ack(coordinator, checkpointId, task);
    }
  }

  /** Fires timers until the coordinator triggers another checkpoint; returns its id. */
  private long nextTrigger() {
    int before = context.triggered.size();
    for (int i = 0; i < 100 && context.triggered.size() == before; i++) {
      assertThat(context.fireNext()).as("a timer is scheduled").isTrue();
    }
    assertThat(context.triggered).hasSizeGreaterThan(before);
    return context.triggered.get(context.triggered.size() - 1);
  }

  private static List<Long> ids(List<CompletedCheckpoint> checkpoints) {
    return checkpoints.stream().map(CompletedCheckpoint::checkpointId).toList();
  }

  private List<Long> stored() throws IOException {
    List<String> problems = new ArrayList<>();
    List<Long> ids = ids(storage.loadRetained(problems));
    assertThat(problems).isEmpty();
    return ids;
  }

  // ---------------------------------------------------------------------------------------------

  @org.junit.jupiter.api.io.TempDir java.nio.file.Path savepoints;

  @Test
  void aSavepointIsAlignedNotSubsumedByALaterCheckpointAndNotRetained() throws Exception {
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1));
    coordinator.setCheckpointAlignment(BarrierHandler.Alignment.UNALIGNED);
    java.util.concurrent.CompletableFuture<String> savepoint =
        coordinator.triggerSavepoint(savepoints.toString(), CheckpointOptions.Type.SAVEPOINT);
    long savepointId = context.triggered.get(0);
    CheckpointOptions options = context.triggerOptions.get(0);
    assertThat(options.type()).isEqualTo(CheckpointOptions.Type.SAVEPOINT);
    assertThat(options.alignment()).isEqualTo(BarrierHandler.Alignment.ALIGNED);
    assertThat(options.targetLocation())
        .as("the tasks write into the savepoint's own directory, named at the trigger")
        .startsWith(savepoints.toUri() + "savepoint-" + JOB.substring(0, 6) + "-");
    long checkpointId = nextTrigger();
    assertThat(context.triggerOptions.get(1))
        .isEqualTo(CheckpointOptions.checkpoint(BarrierHandler.Alignment.UNALIGNED));

    ackAll(coordinator, checkpointId);
    assertThat(context.aborted).as("a savepoint is never subsumed").isEmpty();
    assertThat(savepoint).isNotDone();
    ackAll(coordinator, savepointId);

    String path = savepoint.get();
    assertThat(java.nio.file.Path.of(java.net.URI.create(path)).resolve("_metadata")).exists();
    assertThat(context.completed)
        .as("an intermediate savepoint is not told to the tasks: it commits no side effects")
        .containsExactly(checkpointId);
    assertThat(ids(coordinator.retained())).containsExactly(checkpointId);
    assertThat(stored())
        .as("the savepoint's copy in the job's storage is gone")
        .containsExactly(checkpointId);
  }

  /**
   * Found by the simulation (seed 8): savepoint 3 completed and its notification made the sink
   * commit its transactions (of the aborted checkpoint 2 and of the savepoint); the attempt then
   * failed and restarted from nothing, since no checkpoint had completed and a failover never
   * restores a savepoint, and those records were committed again. A stop-with-savepoint is told:
   * the job ends with it.
   */
  @Test
  void anIntermediateSavepointCommitsNoSideEffectsAStoppingOneDoes() throws Exception {
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1));
    java.util.concurrent.CompletableFuture<String> intermediate =
        coordinator.triggerSavepoint(savepoints.toString(), CheckpointOptions.Type.SAVEPOINT);
    long intermediateId = context.triggered.get(0);
    ackAll(coordinator, intermediateId);
    assertThat(intermediate.get()).isNotNull();
    assertThat(context.completed).as("no task hears of the intermediate savepoint").isEmpty();

    java.util.concurrent.CompletableFuture<String> stopping =
        coordinator.triggerSavepoint(
            savepoints.toString(), CheckpointOptions.Type.SAVEPOINT_SUSPEND);
    long stoppingId = context.triggered.get(1);
    ackAll(coordinator, stoppingId);
    assertThat(stopping.get()).isNotNull();
    assertThat(context.completed).containsExactly(stoppingId);
    assertThat(coordinator.isFinal(stoppingId)).isTrue();
  }

  /**
   * Found by the simulation with stop-with-savepoint (seeds 161 and 288): a checkpoint still
   * pending when the stop completed was completed by the stopped tasks' FINISHED reports, as if
   * every source had ended its input; a restore of it lost every record after it.
   */
  @Test
  void aCompletedStopWithSavepointAbortsTheCheckpointsPendingBeforeIt() throws Exception {
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1));
    long checkpointId = nextTrigger();
    ack(coordinator, checkpointId, SOURCE_0);
    java.util.concurrent.CompletableFuture<String> stopping =
        coordinator.triggerSavepoint(
            savepoints.toString(), CheckpointOptions.Type.SAVEPOINT_SUSPEND);
    long stoppingId = context.triggered.get(context.triggered.size() - 1);
    ackAll(coordinator, stoppingId);
    assertThat(stopping.get()).isNotNull();
    assertThat(context.aborted).contains(checkpointId);

    for (TaskKey task : TASKS) {
      coordinator.taskFinished(task); // stopped with the savepoint, input not ended
    }

    assertThat(context.completed).containsExactly(stoppingId);
    assertThat(coordinator.retained()).isEmpty();
  }

  private CheckpointCoordinator started(
      CheckpointSettings settings, CompletedCheckpointStore store) {
    return started(settings, storage, store);
  }

  private CheckpointCoordinator started(
      CheckpointSettings settings, CheckpointStorage storage, CompletedCheckpointStore store) {
    CheckpointCoordinator coordinator =
        new CheckpointCoordinator(
            JOB, settings, OPERATORS, storage, context, CheckpointIDCounter.inMemory(0), store);
    coordinator.setTasks(TASKS);
    coordinator.start();
    return coordinator;
  }

  /** Stops the job with a savepoint without drain, as {@code JobMaster.stopWithSavepoint} asks. */
  private java.util.concurrent.CompletableFuture<String> stopWithSavepoint(
      CheckpointCoordinator coordinator) {
    return coordinator.triggerSavepoint(
        savepoints.toString(), CheckpointOptions.Type.SAVEPOINT_SUSPEND);
  }

  /**
   * A store in memory whose record of a stop first runs {@code onRecord}; it is applied unless that
   * throws "refused", and the caller hears of {@code onRecord}'s exception either way.
   */
  private static CompletedCheckpointStore storeRecordingStops(Runnable onRecord) {
    CompletedCheckpointStore inner = CompletedCheckpointStore.inMemory(1, List.of());
    return new CompletedCheckpointStore() {
      @Override
      public List<CompletedCheckpoint> add(CompletedCheckpoint checkpoint) {
        return inner.add(checkpoint);
      }

      @Override
      public List<CompletedCheckpoint> all() {
        return inner.all();
      }

      @Override
      public List<CompletedCheckpoint> removeAll() {
        return inner.removeAll();
      }

      @Override
      public void stopCompleted(CompletedStop stop) {
        try {
          onRecord.run();
        } catch (RuntimeException e) {
          if (!e.getMessage().contains("refused")) {
            inner.stopCompleted(stop); // applied, its outcome unknown to the caller
          }
          throw e;
        }
        inner.stopCompleted(stop);
      }

      @Override
      public CompletedStop completedStop() {
        return inner.completedStop();
      }
    };
  }

  /**
   * Found by the simulation with stop-with-savepoint (seeds 161 and 227): a job master that took
   * the job over knew nothing of a completed stop and restored an older checkpoint; a task that
   * missed the stop's notification stayed suspended for good.
   */
  @Test
  void aCompletedStopIsRecordedBeforeAnyTaskIsToldAndToldAgainEveryIntervalUntilTheAttemptEnds()
      throws Exception {
    List<Long> toldWhenRecorded = new ArrayList<>();
    CheckpointCoordinator coordinator =
        started(
            settings(0, 2, 0, 1),
            storeRecordingStops(() -> toldWhenRecorded.addAll(context.completed)));
    java.util.concurrent.CompletableFuture<String> stopping = stopWithSavepoint(coordinator);
    long id = context.triggered.get(0);
    ackAll(coordinator, id);

    assertThat(coordinator.completedStop()).isEqualTo(new CompletedStop(id, stopping.get()));
    assertThat(toldWhenRecorded).as("no task told before the store recorded it").isEmpty();
    assertThat(context.completed).containsExactly(id);
    context.advance(INTERVAL);
    context.advance(INTERVAL);
    assertThat(context.completed).containsExactly(id, id, id);
    assertThat(context.triggered).as("nothing triggered after the stop").containsExactly(id);

    coordinator.stop();
    context.advance(3 * INTERVAL);
    assertThat(context.completed).as("not after the attempt ended").hasSize(3);
  }

  @Test
  void aStopTheStoreRefusesFailsKeepsItsSavepointAndTheJobReadsOn() throws Exception {
    CheckpointCoordinator coordinator =
        started(
            settings(0, 2, 0, 1),
            storeRecordingStops(
                () -> {
                  throw new IllegalStateException("testing: refused, a newer leader leads");
                }));
    java.util.concurrent.CompletableFuture<String> stopping = stopWithSavepoint(coordinator);
    long id = context.triggered.get(0);
    String location = context.triggerOptions.get(0).targetLocation();
    ackAll(coordinator, id);

    assertThat(catchCause(stopping))
        .hasMessageContaining("Savepoint " + id)
        .hasMessageContaining("NOT_RECORDED")
        .hasMessageContaining("did not record the job's stop")
        .hasMessageContaining("refused, a newer leader leads");
    assertThat(coordinator.completedStop()).isNull();
    assertThat(context.completed).isEmpty();
    assertThat(context.aborted).containsExactly(id);
    assertThat(context.failures).isEmpty();
    assertThat(java.nio.file.Path.of(java.net.URI.create(location)).resolve("_metadata"))
        .as("kept: had the store recorded it after all, a later leader would name it")
        .exists();
    assertThat(nextTrigger()).as("the job reads on").isGreaterThan(id);
  }

  @Test
  void aStopWhoseRecordHasAnUnknownOutcomeEndsTheJobAndNoTaskIsTold() throws Exception {
    CheckpointCoordinator coordinator =
        started(
            settings(0, 2, 0, 1),
            storeRecordingStops(
                () -> {
                  throw new IllegalStateException("testing: the connection was lost");
                }));
    java.util.concurrent.CompletableFuture<String> stopping = stopWithSavepoint(coordinator);
    long id = context.triggered.get(0);
    ackAll(coordinator, id);

    assertThat(catchCause(stopping)).hasMessageContaining("NOT_RECORDED");
    assertThat(coordinator.completedStop()).as("as good as recorded").isNotNull();
    assertThat(context.completed).isEmpty();
    assertThat(context.failures).hasSize(1);
    assertThat(context.failures.get(0))
        .hasMessageContaining("The stop of job " + JOB + " with savepoint " + id)
        .hasMessageContaining("may be recorded or not (testing: the connection was lost)");
    context.advance(3 * INTERVAL);
    assertThat(context.triggered).as("it does not read on past the stop").containsExactly(id);
  }

  @Test
  void aStopWhoseAttemptEndedWhileItsMetadataWasWrittenIsNotRecorded() throws Exception {
    BlockingCommits blocking = new BlockingCommits(storage);
    CompletedCheckpointStore store = CompletedCheckpointStore.inMemory(1, List.of());
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1), blocking, store);
    java.util.concurrent.CompletableFuture<String> stopping = stopWithSavepoint(coordinator);
    long id = context.triggered.get(0);
    Thread lastAck = acknowledgeAllInAnotherThread(coordinator, id, blocking);

    coordinator.stop(); // the attempt failed: the job restarts
    blocking.release.countDown();
    coordinator.awaitCommits();
    lastAck.join();

    assertThat(catchCause(stopping))
        .hasMessageContaining("JOB_STOPPED")
        .hasMessageContaining("its attempt ended while its metadata was written");
    assertThat(store.completedStop())
        .as("recorded, it would end the restarted job naming a savepoint it went past")
        .isNull();
    assertThat(context.completed).isEmpty();
  }

  /**
   * Found by the simulation (seed 260 with a planted bug that changed its path): a source's
   * acknowledgement of a savepoint triggered before its input ended was lost; the source finished
   * after the final checkpoint, and its FINISHED report completed the savepoint as if the source
   * had ended its input before the barrier: the savepoint's source offsets were past its counts.
   */
  @Test
  void aTaskThatFinishesWithoutAcknowledgingACheckpointTriggeredBeforeItsInputEndedAbortsIt()
      throws Exception {
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1));
    java.util.concurrent.CompletableFuture<String> savepoint =
        coordinator.triggerSavepoint(savepoints.toString(), CheckpointOptions.Type.SAVEPOINT);
    long savepointId = context.triggered.get(0);
    ack(coordinator, savepointId, SOURCE_0);
    ack(coordinator, savepointId, SINK_0); // SOURCE_1's acknowledgement is lost
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      coordinator.reachedEndOfInput(task);
    }
    long finalId = nextTrigger();
    ackAll(coordinator, finalId);
    assertThat(context.completed).containsExactly(finalId);

    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      coordinator.taskFinished(task);
    }

    assertThat(catchCause(savepoint))
        .hasMessageContaining("Savepoint " + savepointId)
        .hasMessageContaining("TASK_FINISHED")
        .hasMessageContaining("'Source' (2/2) finished without acknowledging it");
    assertThat(context.aborted).contains(savepointId);
    assertThat(context.failures).isEmpty();
  }

  /**
   * Found by the simulation (seeds 1433 and 1956 of 301..3000): a stop-with-savepoint triggered
   * after every input ended took the FINISHED report of a subtask that finished meanwhile as its
   * acknowledgement; the job resumed from it restored that subtask as finished, and the sink after
   * it waited for barriers that never came: every checkpoint timed out, restart after restart.
   */
  @Test
  void aSavepointIsAbortedRatherThanRecordAFinishedSubtask() throws Exception {
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1));
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      coordinator.reachedEndOfInput(task);
    }
    java.util.concurrent.CompletableFuture<String> stopping = stopWithSavepoint(coordinator);
    long id = context.triggered.get(context.triggered.size() - 1);
    ack(coordinator, id, SOURCE_0);
    ack(coordinator, id, SOURCE_1);

    coordinator.taskFinished(SINK_0);

    assertThat(catchCause(stopping))
        .hasMessageContaining("TASK_FINISHED")
        .hasMessageContaining("'Sink' (1/1) finished without acknowledging it");
    assertThat(coordinator.completedStop()).isNull();
  }

  /**
   * A checkpoint after the final one would record the subtasks that finished meanwhile as finished
   * without state, which a restore cannot run again (a source would start over).
   */
  @Test
  void afterTheFinalCheckpointNothingIsTriggeredAndItIsToldAgainUntilTheAttemptEnds()
      throws Exception {
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1));
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      coordinator.reachedEndOfInput(task);
    }
    long finalId = nextTrigger();
    long newer = nextTrigger();
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      String operator = task.vertex() == 0 ? "source-uid" : "sink-uid";
      StreamStateHandle handle =
          storage.writeState(finalId, new byte[] {(byte) task.subtask()}, "final state");
      coordinator.acknowledge(
          task,
          finalId,
          Map.of(
              operator,
              new OperatorSubtaskState(null, new OperatorStateHandle(Map.of(), handle), true)));
    }

    assertThat(coordinator.isFinal(finalId)).isTrue();
    assertThat(context.aborted).as("nothing more to hold").containsExactly(newer);
    int triggered = context.triggered.size();
    context.advance(INTERVAL);
    context.advance(INTERVAL);
    assertThat(context.triggered).hasSize(triggered);
    assertThat(context.completed).containsExactly(finalId, finalId, finalId);

    coordinator.stop();
    context.advance(3 * INTERVAL);
    assertThat(context.completed).hasSize(3);
  }

  /**
   * Min pause ran on the wall clock: a step back of an hour (an NTP correction, a resumed virtual
   * machine) held every checkpoint back for that hour.
   */
  @Test
  void aStepOfTheWallClockNeitherHoldsBackNorHurriesTheNextCheckpoint() throws Exception {
    CheckpointCoordinator coordinator = started(settings(5_000, 1, 0, 1));
    long first = nextTrigger();
    ackAll(coordinator, first);
    long ended = context.now;
    context.wallClockStep = -3_600_000; // while min pause runs

    long second = nextTrigger();
    assertThat(context.now)
        .as("min pause after the first ended, not an hour later")
        .isEqualTo(ended + 5_000);
    assertThat(context.triggerTimes.get(1))
        .as("its timestamp is the wall clock's")
        .isEqualTo(context.now - 3_600_000);

    ackAll(coordinator, second);
    ended = context.now;
    context.wallClockStep = 3_600_000;
    nextTrigger();
    assertThat(context.now).as("not sooner than min pause either").isEqualTo(ended + 5_000);
  }

  /**
   * The statistics' times were each read off the wall clock: a step of it while a checkpoint was
   * pending made its durations negative (clamped to 0) or an hour long.
   */
  @Test
  void aStepOfTheWallClockWhileACheckpointIsPendingDoesNotShowInItsDurations() throws Exception {
    CheckpointCoordinator coordinator = started(settings(0, 1, 5, 1));
    long completed = nextTrigger();
    long triggeredAt = context.triggerTimes.get(context.triggerTimes.size() - 1);
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      context.now += 20;
      context.wallClockStep -= 3_600_000; // an hour back before each acknowledgement
      coordinator.acknowledge(
          task,
          completed,
          Map.of(task.vertex() == 0 ? "source-uid" : "sink-uid", state(completed, task)),
          new CheckpointStatistics.SubtaskCheckpointStatistics(
              task.vertex() == 0 ? "Source" : "Sink", task.subtask(), 1, 2, false, 0, 3, 1, 9, 9));
    }
    CheckpointStatistics done = coordinator.latestCompletedStatistics();
    assertThat(done.checkpointId()).isEqualTo(completed);
    assertThat(done.triggerTimestamp()).isEqualTo(triggeredAt);
    assertThat(done.endToEndDurationMillis()).isEqualTo(60);
    assertThat(done.subtasks())
        .extracting(s -> s.endToEndDurationMillis(done.triggerTimestamp()))
        .containsExactlyInAnyOrder(20L, 40L, 60L);

    long failed = nextTrigger();
    context.now += 30;
    context.wallClockStep += 7_200_000; // two hours forward
    coordinator.decline(SINK_0, failed, new IOException("disk full"));
    CheckpointStatistics declined =
        coordinator.statistics().stream()
            .filter(s -> s.checkpointId() == failed)
            .findFirst()
            .orElseThrow();
    assertThat(declined.status()).isEqualTo(CheckpointStatistics.Status.FAILED);
    assertThat(declined.endToEndDurationMillis()).isEqualTo(30);
  }

  @Test
  void aFailedSavepointIsNotCountedAmongTheTolerableFailures() {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));
    java.util.concurrent.CompletableFuture<String> savepoint =
        coordinator.triggerSavepoint(
            savepoints.toString(), CheckpointOptions.Type.SAVEPOINT_SUSPEND);
    long id = context.triggered.get(0);

    context.advance(TIMEOUT + 1);

    assertThat(context.aborted).contains(id);
    assertThat(catchCause(savepoint))
        .hasMessageContaining("Savepoint " + id)
        .hasMessageContaining("TIMEOUT");
    assertThat(context.failures)
        .as("tolerable-failed-checkpoints is 0, yet the job goes on")
        .isEmpty();
    assertThat(coordinator.consecutiveFailures()).isZero();
  }

  @Test
  void noCheckpointStartsWhileAStopWithSavepointIsPendingAndASecondStopIsRefused() {
    CheckpointCoordinator coordinator = started(settings(0, 3, 0, 1));
    coordinator.triggerSavepoint(savepoints.toString(), CheckpointOptions.Type.SAVEPOINT_TERMINATE);
    java.util.concurrent.CompletableFuture<String> second =
        coordinator.triggerSavepoint(
            savepoints.toString(), CheckpointOptions.Type.SAVEPOINT_SUSPEND);

    context.advance(3 * INTERVAL);

    assertThat(context.triggered).as("only the stop's savepoint").hasSize(1);
    assertThat(catchCause(second))
        .hasMessageContaining("stop-with-savepoint is already in progress");
  }

  private static Throwable catchCause(java.util.concurrent.CompletableFuture<String> future) {
    try {
      future.join();
      throw new AssertionError("the future completed normally");
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause();
    }
  }

  @org.junit.jupiter.api.io.TempDir java.nio.file.Path checkpointDir;

  @org.junit.jupiter.api.io.TempDir java.nio.file.Path elsewhere;

  /** A file-system storage that keeps no state inline, so every task's state is a file. */
  private FileSystemCheckpointStorage fileStorage() {
    return new FileSystemCheckpointStorage(checkpointDir.toUri(), JOB, 0);
  }

  /** What a task does for a snapshot: writes its state where the trigger said, then acks. */
  private StreamStateHandle upload(
      CheckpointStorage jobStorage, long id, CheckpointOptions options, TaskKey task)
      throws IOException {
    return jobStorage
        .location(id, options.targetLocation())
        .writeState(id, ("state of " + task + " in " + id).getBytes(), "state of " + task);
  }

  private static void ack(
      CheckpointCoordinator coordinator, long id, TaskKey task, StreamStateHandle handle) {
    String operator = task.vertex() == 0 ? "source-uid" : "sink-uid";
    coordinator.acknowledge(
        task,
        id,
        Map.of(
            operator,
            new OperatorSubtaskState(null, new OperatorStateHandle(Map.of(), handle), false)));
  }

  private static List<java.nio.file.Path> filesBelow(java.nio.file.Path dir) throws IOException {
    if (!java.nio.file.Files.exists(dir)) {
      return List.of();
    }
    try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(dir)) {
      return walk.filter(java.nio.file.Files::isRegularFile).sorted().toList();
    }
  }

  private static java.nio.file.Path pathOf(String uri) {
    return java.nio.file.Path.of(java.net.URI.create(uri));
  }

  /** The sink's keyed state: one shared file (an SST) of database "db", uploaded or reused. */
  private static Map<String, OperatorSubtaskState> incremental(
      long id, StreamStateHandle shared, boolean reused) {
    return Map.of(
        "sink-uid",
        new OperatorSubtaskState(
            new IncrementalKeyedStateHandle(
                io.weir.runtime.state.KeyGroupRange.of(0, 127),
                "db",
                id,
                new StreamStateHandle.Inline(new byte[0], 0),
                List.of(new IncrementalKeyedStateHandle.SharedFile("000007.sst", shared, reused)),
                List.of()),
            null,
            false));
  }

  /**
   * Found by the simulation (weir-simulation, seed 3): a coordinator of a new leader started with
   * recovered checkpoints did not register their shared files, so the first checkpoint of a task
   * restored from one, which refers to its files without uploading them again, failed to complete
   * ("refers to shared file db/000007.sst, which no retained checkpoint holds any more"), and so
   * did every checkpoint after it.
   */
  @Test
  void aCoordinatorWithRecoveredCheckpointsKnowsTheirSharedFiles() throws Exception {
    FileSystemCheckpointStorage jobStorage = fileStorage();
    CheckpointCoordinator first = started(settings(0, 1, 0, 1), jobStorage);
    long id = nextTrigger();
    StreamStateHandle sst =
        jobStorage.writeSharedFile(
            id,
            java.nio.file.Files.write(elsewhere.resolve("000007.sst"), new byte[] {1, 2, 3}),
            "an SST");
    for (TaskKey source : List.of(SOURCE_0, SOURCE_1)) {
      ack(
          first,
          id,
          source,
          upload(
              jobStorage,
              id,
              CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED),
              source));
    }
    first.acknowledge(SINK_0, id, incremental(id, sst, false));
    assertThat(ids(first.retained())).containsExactly(id);

    first.stop(); // its timers end with it
    // A new leader: the store hands over what the old one recorded.
    CheckpointCoordinator next =
        new CheckpointCoordinator(
            JOB,
            settings(0, 1, 0, 1),
            OPERATORS,
            jobStorage,
            context,
            CheckpointIDCounter.inMemory(id),
            CompletedCheckpointStore.inMemory(1, first.retained()));
    assertThat(next.sharedStatePaths())
        .containsExactly(((StreamStateHandle.File) sst).relativePath());
    next.setTasks(TASKS);
    next.start();
    long after = nextTrigger();
    for (TaskKey source : List.of(SOURCE_0, SOURCE_1)) {
      ack(
          next,
          after,
          source,
          upload(
              jobStorage,
              after,
              CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED),
              source));
    }
    next.acknowledge(SINK_0, after, incremental(after, sst, true));

    assertThat(ids(next.retained())).containsExactly(after);
    assertThat(next.sharedStatePaths())
        .containsExactly(((StreamStateHandle.File) sst).relativePath());
    assertThat(jobStorage.readState(sst)).containsExactly(1, 2, 3);
  }

  /**
   * Found by the simulation (weir-simulation, seed 3): a checkpoint whose metadata could not be
   * written stayed in the shared-state registry. A task restored from an older checkpoint writes
   * its files again under the same names with other contents; the registry took the new upload of
   * such a file for a duplicate of the failed checkpoint's and swapped in the old file, so the next
   * completed checkpoint held state of an attempt that had been given up.
   */
  @Test
  void aCheckpointWhoseMetadataFailsLeavesNoSharedFileBehindForLaterOnes() throws Exception {
    FileSystemCheckpointStorage jobStorage = fileStorage();
    CheckpointCoordinator coordinator = started(settings(0, 1, 5, 1), jobStorage);
    long failed = nextTrigger();
    StreamStateHandle stale =
        jobStorage.writeSharedFile(
            failed,
            java.nio.file.Files.write(elsewhere.resolve("stale.sst"), new byte[] {6, 6}),
            "an SST");
    // Its metadata cannot be written: the in-progress file's place is taken by a directory.
    java.nio.file.Files.createDirectories(
        checkpointDir.resolve(JOB).resolve("chk-" + failed).resolve("_metadata.inprogress/x"));
    for (TaskKey source : List.of(SOURCE_0, SOURCE_1)) {
      ack(
          coordinator,
          failed,
          source,
          upload(
              jobStorage,
              failed,
              CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED),
              source));
    }
    coordinator.acknowledge(SINK_0, failed, incremental(failed, stale, false));
    assertThat(coordinator.retained()).isEmpty();
    assertThat(coordinator.sharedStatePaths()).isEmpty();

    // The same file name again, with what the task holds now.
    long next = nextTrigger();
    StreamStateHandle fresh =
        jobStorage.writeSharedFile(
            next,
            java.nio.file.Files.write(elsewhere.resolve("fresh.sst"), new byte[] {7, 7}),
            "an SST");
    for (TaskKey source : List.of(SOURCE_0, SOURCE_1)) {
      ack(
          coordinator,
          next,
          source,
          upload(
              jobStorage,
              next,
              CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED),
              source));
    }
    coordinator.acknowledge(SINK_0, next, incremental(next, fresh, false));

    assertThat(ids(coordinator.retained())).containsExactly(next);
    IncrementalKeyedStateHandle kept =
        (IncrementalKeyedStateHandle)
            coordinator.retained().get(0).operator("sink-uid").subtasks().get(0).keyed();
    assertThat(kept.sharedFiles().get(0).handle()).isEqualTo(fresh);
    assertThat(jobStorage.readState(fresh)).containsExactly(7, 7);
  }

  @Test
  void aSavepointsTasksWriteStraightIntoItsDirectoryAndNothingIntoTheJobsStorage()
      throws Exception {
    FileSystemCheckpointStorage jobStorage = fileStorage();
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1), jobStorage);
    java.util.concurrent.CompletableFuture<String> savepoint =
        coordinator.triggerSavepoint(savepoints.toString(), CheckpointOptions.Type.SAVEPOINT);
    long id = context.triggered.get(0);
    CheckpointOptions options = context.triggerOptions.get(0);
    Map<TaskKey, StreamStateHandle> handles = new HashMap<>();
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      handles.put(task, upload(jobStorage, id, options, task));
    }
    java.nio.file.Path target = pathOf(options.targetLocation());
    assertThat(filesBelow(target)).as("the tasks' files, no metadata yet").hasSize(3);
    assertThat(target.resolve("_metadata")).doesNotExist();
    handles.forEach((task, handle) -> ack(coordinator, id, task, handle));

    java.nio.file.Path written = pathOf(savepoint.get());
    assertThat(written).isEqualTo(target);
    assertThat(filesBelow(written))
        .hasSize(5) // three tasks' state, the metadata, the flight recorder's history
        .contains(written.resolve("_metadata"), written.resolve(CheckpointHistoryFormat.FILE));
    assertThat(filesBelow(checkpointDir))
        .as("nothing of the savepoint in the job's checkpoint directory (chk-%d, shared/)", id)
        .isEmpty();
    for (StreamStateHandle handle : handles.values()) {
      assertThat(((StreamStateHandle.File) handle).relativePath()).startsWith("chk-" + id + "/");
    }

    // Relocatable: moved elsewhere, it still reads, every file verified.
    java.nio.file.Path moved = elsewhere.resolve("moved");
    java.nio.file.Files.move(written, moved);
    var loaded = CompletedCheckpointLocation.load(moved.toString(), null);
    assertThat(loaded.checkpoint().savepoint()).isTrue();
    for (Map.Entry<TaskKey, StreamStateHandle> e : handles.entrySet()) {
      assertThat(new String(loaded.storage().readState(e.getValue())))
          .isEqualTo("state of " + e.getKey() + " in " + id);
    }
  }

  @Test
  void aDeclinedSavepointLeavesNoDirectoryAndAnUploadThatEndsAfterTheAbortIsDeletedToo()
      throws Exception {
    FileSystemCheckpointStorage jobStorage = fileStorage();
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1), jobStorage);
    java.util.concurrent.CompletableFuture<String> savepoint =
        coordinator.triggerSavepoint(savepoints.toString(), CheckpointOptions.Type.SAVEPOINT);
    long id = context.triggered.get(0);
    CheckpointOptions options = context.triggerOptions.get(0);
    java.nio.file.Path target = pathOf(options.targetLocation());
    ack(coordinator, id, SOURCE_0, upload(jobStorage, id, options, SOURCE_0));
    assertThat(filesBelow(target)).hasSize(1);

    coordinator.decline(SINK_0, id, new IOException("disk full"));

    assertThat(catchCause(savepoint)).hasMessageContaining("DECLINED");
    assertThat(target).as("what the savepoint's tasks wrote is deleted").doesNotExist();
    // SOURCE_1's upload was still running: it writes into the deleted directory, then acks.
    ack(coordinator, id, SOURCE_1, upload(jobStorage, id, options, SOURCE_1));
    assertThat(target).as("the late upload is deleted as well").doesNotExist();
    assertThat(filesBelow(savepoints)).isEmpty();
    assertThat(filesBelow(checkpointDir)).isEmpty();
  }

  @Test
  void aSavepointWhoseMetadataCannotBeWrittenLeavesNoMetadataAndNoFiles() throws Exception {
    FileSystemCheckpointStorage jobStorage = fileStorage();
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1), jobStorage);
    java.util.concurrent.CompletableFuture<String> savepoint =
        coordinator.triggerSavepoint(savepoints.toString(), CheckpointOptions.Type.SAVEPOINT);
    long id = context.triggered.get(0);
    CheckpointOptions options = context.triggerOptions.get(0);
    java.nio.file.Path target = pathOf(options.targetLocation());
    Map<TaskKey, StreamStateHandle> handles = new HashMap<>();
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      handles.put(task, upload(jobStorage, id, options, task));
    }
    // The metadata's upload fails: its in-progress file cannot be created.
    java.nio.file.Files.createDirectories(target.resolve("_metadata.inprogress").resolve("x"));

    handles.forEach((task, handle) -> ack(coordinator, id, task, handle));

    assertThat(catchCause(savepoint)).hasMessageContaining("STORAGE_FAILURE");
    assertThat(target).as("no half-written savepoint is left").doesNotExist();
    assertThat(context.failures).as("not a checkpoint failure").isEmpty();
    assertThat(filesBelow(checkpointDir)).isEmpty();
  }

  @Test
  void theFlightRecorderWritesTheHistoryBesideTheMetadataAndANewCoordinatorTakesItUp()
      throws Exception {
    FileSystemCheckpointStorage jobStorage = fileStorage();
    CheckpointCoordinator coordinator = started(settings(0, 1, 5, 1), jobStorage);
    long first = nextTrigger();
    CheckpointOptions options = context.triggerOptions.get(context.triggerOptions.size() - 1);
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      context.now += 7;
      coordinator.acknowledge(
          task,
          first,
          Map.of(
              task.vertex() == 0 ? "source-uid" : "sink-uid",
              new OperatorSubtaskState(
                  null,
                  new OperatorStateHandle(Map.of(), upload(jobStorage, first, options, task)),
                  false)),
          new CheckpointStatistics.SubtaskCheckpointStatistics(
              task.vertex() == 0 ? "Source" : "Sink", task.subtask(), 1, 2, false, 0, 3, 1, 9, 9));
    }
    long failed = nextTrigger();
    coordinator.decline(SINK_0, failed, new IOException("disk full"));
    long second = nextTrigger();
    options = context.triggerOptions.get(context.triggerOptions.size() - 1);
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      coordinator.acknowledge(
          task,
          second,
          Map.of(
              task.vertex() == 0 ? "source-uid" : "sink-uid",
              new OperatorSubtaskState(
                  null,
                  new OperatorStateHandle(Map.of(), upload(jobStorage, second, options, task)),
                  false)),
          new CheckpointStatistics.SubtaskCheckpointStatistics(
              task.vertex() == 0 ? "Source" : "Sink", task.subtask(), 1, 2, false, 0, 3, 1, 9, 9));
    }
    String pointer = jobStorage.externalPointer(second);
    // The sink's commits come after the completions: the subsumed checkpoint's only into the
    // history (its directory is gone and stays gone), the newest one's beside it too.
    CheckpointStatistics.SinkCommit late =
        new CheckpointStatistics.SinkCommit(context.now + 3, 4, "Operator 'Sink' failed: fenced");
    coordinator.sinkCommitted(SINK_0, first, late);
    coordinator.sinkCommitted(
        SINK_0, second, new CheckpointStatistics.SinkCommit(context.now + 1, 2, null));
    assertThat(pathOf(jobStorage.externalPointer(first))).doesNotExist();
    CheckpointHistory kept = CheckpointHistoryFormat.read(pointer, new Configuration());
    assertThat(kept.checkpoints().get(0).subtasks().get(2).commit()).isEqualTo(late);
    assertThat(kept.checkpoints().get(2).subtasks())
        .extracting(CheckpointStatistics.SubtaskCheckpointStatistics::commit)
        .containsExactly(null, null, new CheckpointStatistics.SinkCommit(context.now + 1, 2, null));
    List<CheckpointStatistics> before = coordinator.statistics();
    CheckpointStatistics firstStats = before.get(0);
    assertThat(firstStats.subtasks())
        .extracting(CheckpointStatistics.SubtaskCheckpointStatistics::ackTimestamp)
        .containsExactly(
            firstStats.triggerTimestamp() + 7,
            firstStats.triggerTimestamp() + 14,
            firstStats.triggerTimestamp() + 21);
    assertThat(firstStats.subtasks())
        .extracting(CheckpointStatistics.SubtaskCheckpointStatistics::vertexIndex)
        .containsExactly(0, 0, 1);
    assertThat(firstStats.criticalPath().description()).startsWith("Sink (1/1)");
    assertThat(pathOf(pointer).resolve(CheckpointHistoryFormat.FILE)).exists();
    // The first checkpoint was subsumed: its directory, history and all, is gone.
    assertThat(pathOf(jobStorage.externalPointer(first))).doesNotExist();
    coordinator.stop();

    CheckpointCoordinator next =
        new CheckpointCoordinator(
            JOB, settings(0, 1, 5, 1), OPERATORS, jobStorage, context, second, List.of());
    next.restoreHistory(pointer);

    assertThat(next.statistics()).isEqualTo(before);
    assertThat(next.statistics())
        .extracting(CheckpointStatistics::checkpointId)
        .containsExactly(first, failed, second);
    assertThat(next.statisticsCounts()).isEqualTo(new CheckpointStatsCounts(0, 2, 1));
    assertThat(next.latestCompletedStatistics().checkpointId()).isEqualTo(second);
  }

  @Test
  void aDamagedHistoryCostsOnlyTheHistory() throws Exception {
    FileSystemCheckpointStorage jobStorage = fileStorage();
    java.nio.file.Path chk = java.nio.file.Files.createDirectories(checkpointDir.resolve("chk-3"));
    java.nio.file.Files.write(chk.resolve(CheckpointHistoryFormat.FILE), new byte[] {9, 9});
    CheckpointCoordinator coordinator =
        new CheckpointCoordinator(
            JOB, settings(0, 1, 0, 1), OPERATORS, jobStorage, context, 3, List.of());

    coordinator.restoreHistory(chk.toUri().toString());

    assertThat(coordinator.statistics()).isEmpty();
    assertThat(coordinator.statisticsCounts()).isEqualTo(new CheckpointStatsCounts(0, 0, 0));
  }

  @Test
  void aCheckpointsCleanupNeverDeletesASavepointFile() throws Exception {
    FileSystemCheckpointStorage jobStorage = fileStorage();
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1), jobStorage);
    java.util.concurrent.CompletableFuture<String> savepoint =
        coordinator.triggerSavepoint(savepoints.toString(), CheckpointOptions.Type.SAVEPOINT);
    long savepointId = context.triggered.get(0);
    CheckpointOptions savepointOptions = context.triggerOptions.get(0);
    for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
      ack(coordinator, savepointId, task, upload(jobStorage, savepointId, savepointOptions, task));
    }
    List<java.nio.file.Path> savepointFiles = filesBelow(pathOf(savepoint.get()));

    for (int i = 0; i < 3; i++) { // each subsumes the one before
      long id = nextTrigger();
      CheckpointOptions options = context.triggerOptions.get(context.triggerOptions.size() - 1);
      for (TaskKey task : List.of(SOURCE_0, SOURCE_1, SINK_0)) {
        ack(coordinator, id, task, upload(jobStorage, id, options, task));
      }
    }
    coordinator.discardOrphanedState(true);
    coordinator.stop();
    coordinator.discardRetained();

    assertThat(filesBelow(pathOf(savepoint.get()))).isEqualTo(savepointFiles).hasSize(5);
  }

  @Test
  void firstTriggerComesOneIntervalAfterStart() {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));

    context.advance(INTERVAL - 1);
    assertThat(context.triggered).isEmpty();

    context.advance(1);
    assertThat(context.triggered).containsExactly(1L);
    assertThat(context.triggerTimes).containsExactly(START + INTERVAL);
    assertThat(coordinator.numberOfPending()).isEqualTo(1);
    assertThat(coordinator.lastCheckpointId()).isEqualTo(1);
  }

  @Test
  void idsContinueAfterTheRestoredCheckpoint() {
    CheckpointCoordinator coordinator =
        new CheckpointCoordinator(
            JOB, settings(0, 1, 0, 1), OPERATORS, storage, context, 41, List.of());
    coordinator.setTasks(TASKS);
    coordinator.start();

    assertThat(nextTrigger()).isEqualTo(42);
  }

  @Test
  void completesWhenEveryTaskAcknowledgedAndCommitsTheMetadata() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));
    long id = nextTrigger();
    long triggeredAt = context.now;
    context.advance(300);

    ack(coordinator, id, SOURCE_0);
    ack(coordinator, id, SINK_0);
    assertThat(context.completed).isEmpty();
    assertThat(coordinator.latestCompleted()).isNull();
    ack(coordinator, id, SOURCE_1);

    assertThat(context.completed).containsExactly(id);
    assertThat(context.aborted).isEmpty();
    assertThat(coordinator.numberOfPending()).isZero();
    CompletedCheckpoint checkpoint = coordinator.latestCompleted();
    assertThat(checkpoint.checkpointId()).isEqualTo(id);
    assertThat(checkpoint.jobId()).isEqualTo(JOB);
    assertThat(checkpoint.timestamp()).isEqualTo(triggeredAt);
    assertThat(checkpoint.savepoint()).isFalse();
    assertThat(checkpoint.operator("source-uid").subtasks())
        .containsExactly(state(id, SOURCE_0), state(id, SOURCE_1));
    assertThat(checkpoint.operator("sink-uid").subtasks()).containsExactly(state(id, SINK_0));
    assertThat(storage.loadRetained(new ArrayList<>())).containsExactly(checkpoint);

    // The timeout was cancelled with the completion.
    context.advance(TIMEOUT * 2);
    assertThat(context.aborted).doesNotContain(id);
  }

  @Test
  void timeoutAbortsTheCheckpointAndCountsAFailure() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 1, 1));
    long id = nextTrigger();
    ack(coordinator, id, SOURCE_0);

    context.advance(TIMEOUT - 1);
    assertThat(context.aborted).isEmpty();
    context.advance(1);

    assertThat(context.aborted).containsExactly(id);
    assertThat(coordinator.consecutiveFailures()).isEqualTo(1);
    assertThat(coordinator.failuresTotal()).isEqualTo(1);
    assertThat(context.failures).isEmpty();
    assertThat(stored()).isEmpty();
    // The interval timer found the checkpoint pending and gave up; the abort starts the next one.
    assertThat(context.triggered).containsExactly(id, id + 1);
    assertThat(coordinator.numberOfPending()).isEqualTo(1);

    // Late acknowledgements complete nothing.
    ackAll(coordinator, id);
    assertThat(context.completed).isEmpty();
    assertThat(stored()).isEmpty();
  }

  @Test
  void withNoTolerableFailuresTheFirstFailureFailsTheJob() {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));
    long id = nextTrigger();

    context.advance(TIMEOUT);

    assertThat(context.aborted).containsExactly(id);
    assertThat(context.failures).hasSize(1);
    assertThat(context.failures.get(0))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("Checkpoint " + id)
        .hasMessageContaining("TIMEOUT")
        .hasMessageContaining("tolerable-failed-checkpoints is 0")
        .hasMessageContaining("waiting for 'Source' (1/2), 'Source' (2/2), 'Sink' (1/1)");

    // A failed job triggers no more checkpoints.
    context.advance(100 * INTERVAL);
    assertThat(context.triggered).containsExactly(id);
    assertThat(coordinator.numberOfPending()).isZero();
  }

  /**
   * An expired checkpoint names each subtask it still waited for with the TaskManager it runs on,
   * as the deployment knows it, so that an operator finds the slow one (Flink's message); a subtask
   * whose place is not known (waiting for a slot) is named alone, and one that acknowledged not at
   * all.
   */
  @Test
  void anExpiredCheckpointNamesTheTaskManagerOfEachSubtaskItWaitedFor() throws IOException {
    context.locations.put(SOURCE_0, "tm-1 (127.0.0.1:41234)");
    context.locations.put(SINK_0, "tm-2 (127.0.0.1:41235)");
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));
    long id = nextTrigger();
    ack(coordinator, id, SOURCE_0);

    context.advance(TIMEOUT);

    assertThat(context.aborted).containsExactly(id);
    assertThat(context.failures).hasSize(1);
    assertThat(context.failures.get(0))
        .hasMessage(
            "Checkpoint "
                + id
                + " failed (TIMEOUT), 1 checkpoint failure(s) in a row while"
                + " execution.checkpointing.tolerable-failed-checkpoints is 0: not complete after"
                + " 10000 ms (execution.checkpointing.timeout); waiting for 'Source' (2/2), 'Sink'"
                + " (1/1) on tm-2 (127.0.0.1:41235)");
  }

  @Test
  void withTwoTolerableFailuresTheThirdInARowFailsTheJob() {
    CheckpointCoordinator coordinator = started(settings(0, 1, 2, 1));

    for (int failure = 1; failure <= 2; failure++) {
      coordinator.decline(SINK_0, nextTrigger(), new IOException("disk full"));
      assertThat(coordinator.consecutiveFailures()).isEqualTo(failure);
      assertThat(context.failures).as("after failure %d", failure).isEmpty();
    }
    long third = nextTrigger();
    coordinator.decline(SINK_0, third, new IOException("disk full"));

    assertThat(context.failures).hasSize(1);
    assertThat(context.failures.get(0))
        .hasMessageContaining("Checkpoint " + third)
        .hasMessageContaining("DECLINED")
        .hasMessageContaining("disk full")
        .hasMessageContaining("tolerable-failed-checkpoints is 2");
  }

  @Test
  void aCompletedCheckpointResetsTheFailureCount() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 2, 1));
    Exception cause = new IOException("disk full");

    coordinator.decline(SINK_0, nextTrigger(), cause);
    coordinator.decline(SINK_0, nextTrigger(), cause);
    ackAll(coordinator, nextTrigger());
    assertThat(coordinator.consecutiveFailures()).isZero();
    coordinator.decline(SINK_0, nextTrigger(), cause);
    coordinator.decline(SINK_0, nextTrigger(), cause);
    assertThat(context.failures).isEmpty();
    assertThat(coordinator.failuresTotal()).isEqualTo(4);

    coordinator.decline(SINK_0, nextTrigger(), cause);
    assertThat(context.failures).hasSize(1);
  }

  /**
   * BUG. When the count passes the tolerable number the coordinator fails the job, and LocalJob
   * restarts the same coordinator (stop, setTasks, start) for the next attempt, but {@code
   * consecutiveFailures} is never reset: the first checkpoint failure of the new attempt fails the
   * job again, so flaky checkpoints burn through the restart strategy one failure per attempt.
   * Flink's CheckpointFailureManager clears its counter when it fails the job.
   */
  @Test
  void aFailoverForTooManyFailuresStartsTheCountAgain() {
    CheckpointCoordinator coordinator = started(settings(0, 1, 2, 1));
    Exception cause = new IOException("disk full");
    for (int i = 0; i < 3; i++) {
      coordinator.decline(SINK_0, nextTrigger(), cause);
    }
    assertThat(context.failures).hasSize(1);

    // The job fails over: LocalJob stops the coordinator, redeploys, and starts it again.
    coordinator.stop();
    coordinator.setTasks(TASKS);
    coordinator.start();
    coordinator.decline(SINK_0, nextTrigger(), cause);

    assertThat(context.failures).as("one failure in the new attempt is tolerable").hasSize(1);
  }

  @Test
  void declineAbortsTheCheckpoint() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 1, 1));
    long id = nextTrigger();
    ack(coordinator, id, SOURCE_0);

    // Declines from a task that already acknowledged, or for an unknown checkpoint, change nothing.
    coordinator.decline(SOURCE_0, id, new IOException("late"));
    coordinator.decline(SOURCE_1, id + 5, new IOException("unknown"));
    assertThat(context.aborted).isEmpty();

    coordinator.decline(SOURCE_1, id, new IOException("snapshot failed"));

    assertThat(context.aborted).containsExactly(id);
    assertThat(coordinator.numberOfPending()).isZero();
    assertThat(coordinator.consecutiveFailures()).isEqualTo(1);
    ack(coordinator, id, SOURCE_1);
    ack(coordinator, id, SINK_0);
    assertThat(context.completed).isEmpty();
    assertThat(stored()).isEmpty();
  }

  @Test
  void theNextTriggerWaitsForTheMinPauseAfterACompletion() throws IOException {
    long minPause = 600;
    CheckpointCoordinator coordinator = started(settings(minPause, 1, 0, 1));
    long first = nextTrigger(); // START + 1000
    context.advance(800);
    ackAll(coordinator, first);
    long completedAt = context.now; // START + 1800; the interval timer is due at START + 2000

    context.advanceTo(completedAt + minPause - 1);
    assertThat(context.triggered).containsExactly(first);
    context.advanceTo(completedAt + minPause);
    assertThat(context.triggered).hasSize(2);
    assertThat(context.triggerTimes.get(1)).isEqualTo(completedAt + minPause);
  }

  @Test
  void theMinPauseCountsFromTheCompletionOfACheckpointLongerThanTheInterval() throws IOException {
    long minPause = 600;
    CheckpointCoordinator coordinator = started(settings(minPause, 1, 0, 1));
    long first = nextTrigger();
    context.advance(2_500); // the interval timer fired meanwhile and found one pending
    ackAll(coordinator, first);
    long completedAt = context.now;

    context.advanceTo(completedAt + minPause - 1);
    assertThat(context.triggered).containsExactly(first);
    context.advanceTo(completedAt + minPause);
    assertThat(context.triggerTimes).containsExactly(completedAt - 2_500, completedAt + minPause);
  }

  @Test
  void theMinPauseAlsoFollowsAFailedCheckpoint() {
    long minPause = 3_000;
    CheckpointCoordinator coordinator = started(settings(minPause, 1, 5, 1));
    long first = nextTrigger();
    context.advance(100);
    coordinator.decline(SINK_0, first, new IOException("no"));
    long failedAt = context.now;

    context.advanceTo(failedAt + minPause - 1);
    assertThat(context.triggered).containsExactly(first);
    context.advanceTo(failedAt + minPause);
    assertThat(context.triggered).hasSize(2);
  }

  @Test
  void maxConcurrentOneTriggersNothingWhileACheckpointIsPending() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));
    long first = nextTrigger();

    context.advance(5 * INTERVAL);
    assertThat(context.triggered).containsExactly(first);
    assertThat(coordinator.numberOfPending()).isEqualTo(1);

    ackAll(coordinator, first);
    long completedAt = context.now;
    long second = nextTrigger();
    assertThat(second).isEqualTo(first + 1);
    assertThat(context.triggerTimes.get(1)).isBetween(completedAt, completedAt + INTERVAL);
  }

  @Test
  void maxConcurrentTwoAllowsTwoPending() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1));
    long first = nextTrigger();
    long second = nextTrigger();
    assertThat(context.triggerTimes).containsExactly(START + INTERVAL, START + 2 * INTERVAL);

    context.advance(5 * INTERVAL);
    assertThat(context.triggered).containsExactly(first, second);
    assertThat(coordinator.numberOfPending()).isEqualTo(2);

    ackAll(coordinator, first);
    assertThat(nextTrigger()).isEqualTo(second + 1);
    assertThat(coordinator.numberOfPending()).isEqualTo(2);
  }

  @Test
  void keepsTheNewestNumRetainedCheckpoints() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 3));

    for (int i = 0; i < 5; i++) {
      ackAll(coordinator, nextTrigger());
    }

    assertThat(ids(coordinator.retained())).containsExactly(5L, 4L, 3L);
    assertThat(coordinator.latestCompleted().checkpointId()).isEqualTo(5);
    assertThat(stored())
        .as("older checkpoints are discarded from storage")
        .containsExactly(5L, 4L, 3L);
  }

  @Test
  void anOlderPendingCheckpointIsSubsumedWithoutCountingAFailure() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1));
    long older = nextTrigger();
    long newer = nextTrigger();
    ack(coordinator, older, SOURCE_0);

    ackAll(coordinator, newer);

    assertThat(context.completed).containsExactly(newer);
    assertThat(context.aborted).containsExactly(older);
    assertThat(context.failures).isEmpty();
    assertThat(coordinator.consecutiveFailures()).isZero();
    assertThat(coordinator.failuresTotal()).isZero();
    assertThat(coordinator.numberOfPending()).isZero();

    // The subsumed one cannot complete any more.
    ackAll(coordinator, older);
    assertThat(context.completed).containsExactly(newer);
    assertThat(stored()).containsExactly(newer);
  }

  @Test
  void acknowledgementsForUnknownOrAbortedCheckpointsAreIgnored() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 5, 1));
    long id = nextTrigger();

    ack(coordinator, id + 99, SOURCE_0);
    coordinator.acknowledge(new TaskKey(7, 0), id, Map.of());
    ack(coordinator, id, SOURCE_0);
    ack(coordinator, id, SOURCE_0); // a duplicate counts once
    ack(coordinator, id, SINK_0);
    assertThat(context.completed).isEmpty();
    assertThat(coordinator.numberOfPending()).isEqualTo(1);

    context.advance(TIMEOUT);
    assertThat(context.aborted).containsExactly(id);
    ack(coordinator, id, SOURCE_1);
    assertThat(context.completed).isEmpty();
    assertThat(coordinator.latestCompleted()).isNull();
    assertThat(stored()).isEmpty();
  }

  @Test
  void aFinishedTaskIsRecordedAsFinishedInThePendingCheckpoint() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));
    coordinator.reachedEndOfInput(SOURCE_1);
    long id = nextTrigger();
    ack(coordinator, id, SOURCE_0);

    coordinator.taskFinished(SOURCE_1);
    assertThat(context.completed).isEmpty();
    ack(coordinator, id, SINK_0);

    assertThat(context.completed).containsExactly(id);
    assertThat(coordinator.latestCompleted().operator("source-uid").subtasks())
        .containsExactly(state(id, SOURCE_0), OperatorSubtaskState.FINISHED);
  }

  @Test
  void theLastTaskFinishingCompletesTheCheckpoint() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));
    coordinator.reachedEndOfInput(SINK_0);
    long id = nextTrigger();
    ack(coordinator, id, SOURCE_0);
    ack(coordinator, id, SOURCE_1);

    coordinator.taskFinished(SINK_0);

    assertThat(context.completed).containsExactly(id);
    assertThat(coordinator.latestCompleted().operator("sink-uid").subtasks())
        .containsExactly(OperatorSubtaskState.FINISHED);
  }

  @Test
  void laterCheckpointsDoNotWaitForAFinishedTask() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));
    ackAll(coordinator, nextTrigger());
    coordinator.taskFinished(SOURCE_1);

    long id = nextTrigger();
    ack(coordinator, id, SOURCE_0);
    ack(coordinator, id, SINK_0);

    assertThat(context.completed).containsExactly(1L, id);
  }

  /**
   * BUG. {@code CheckpointCoordinator.complete} fills the subtasks that did not acknowledge with
   * {@link OperatorSubtaskState#EMPTY}; only checkpoints pending when a task finished get {@code
   * FINISHED} (from {@code taskFinished}). Every later checkpoint, and any checkpoint after a task
   * that finished before the first trigger, records the finished subtask as EMPTY, a fresh subtask:
   * restoring from it would lose that the subtask was done (a finished source would read again).
   * Fix: in {@code complete}, use {@code FINISHED} for {@code finishedTasks.contains(key)} when
   * there is no acknowledgement.
   */
  @Test
  void laterCheckpointsStillRecordAFinishedTaskAsFinished() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1));
    ackAll(coordinator, nextTrigger());
    coordinator.taskFinished(SOURCE_1);

    long id = nextTrigger();
    ack(coordinator, id, SOURCE_0);
    ack(coordinator, id, SINK_0);

    assertThat(coordinator.latestCompleted().operator("source-uid").subtasks())
        .containsExactly(state(id, SOURCE_0), OperatorSubtaskState.FINISHED);
  }

  @Test
  void stopAbortsPendingCheckpointsWithoutCountingFailuresAndStopsTriggering() throws IOException {
    CheckpointCoordinator coordinator = started(settings(0, 2, 0, 1));
    long first = nextTrigger();
    long second = nextTrigger();

    coordinator.stop();

    assertThat(context.aborted).containsExactlyInAnyOrder(first, second);
    assertThat(context.failures).isEmpty();
    assertThat(coordinator.consecutiveFailures()).isZero();
    assertThat(coordinator.numberOfPending()).isZero();
    assertThat(context.live()).as("no timer left").isEmpty();
    context.advance(100 * INTERVAL);
    assertThat(context.triggered).containsExactly(first, second);
    ackAll(coordinator, second);
    assertThat(context.completed).isEmpty();

    coordinator.triggerSoon();
    context.advance(INTERVAL);
    assertThat(context.triggered).containsExactly(first, second);
  }

  @Test
  void triggerSoonTriggersPromptlyWhenNothingIsPending() {
    CheckpointCoordinator coordinator =
        started(new CheckpointSettings(60_000, TIMEOUT, 0, 1, 0, 1));
    context.advance(10);

    coordinator.triggerSoon();
    context.advance(0);

    assertThat(context.triggered).containsExactly(1L);
    assertThat(context.triggerTimes).containsExactly(START + 10);
  }

  @Test
  void aFullCheckpointOnRequestIsTheNextOneAndOnlyThatOne() throws IOException {
    CheckpointCoordinator coordinator =
        started(new CheckpointSettings(60_000, TIMEOUT, 0, 1, 0, 1));
    coordinator.setCheckpointAlignment(BarrierHandler.Alignment.UNALIGNED);
    context.advance(10);

    long answeredBy = coordinator.triggerCheckpointSoon(true);
    context.advance(0);
    ackAll(coordinator, 1);
    long next = coordinator.triggerCheckpointSoon(false);
    context.advance(0);

    assertThat(answeredBy).isEqualTo(1L);
    assertThat(next).isEqualTo(2L);
    assertThat(context.triggered).containsExactly(1L, 2L);
    assertThat(context.triggerOptions)
        .extracting(CheckpointOptions::type)
        .containsExactly(CheckpointOptions.Type.FULL_CHECKPOINT, CheckpointOptions.Type.CHECKPOINT);
    assertThat(context.triggerOptions)
        .as("a full checkpoint aligns as the job's checkpoints do")
        .extracting(CheckpointOptions::alignment)
        .containsOnly(BarrierHandler.Alignment.UNALIGNED);
    assertThat(context.triggerOptions.get(0).isSavepoint()).isFalse();
    assertThat(context.triggerOptions.get(0).mayReuseEarlierFiles()).isFalse();
    assertThat(context.triggerOptions.get(1).mayReuseEarlierFiles()).isTrue();
  }

  @Test
  void theEndOfInputTriggersOneCheckpointOnceEverySubtaskHasEndedItsInput() {
    CheckpointCoordinator coordinator =
        started(new CheckpointSettings(60_000, TIMEOUT, 0, 1, 0, 1));

    coordinator.reachedEndOfInput(SOURCE_0);
    coordinator.reachedEndOfInput(SOURCE_1);
    coordinator.reachedEndOfInput(SOURCE_1); // told twice: no effect
    context.advance(1_000);
    assertThat(context.triggered).as("the sink still has input").isEmpty();

    coordinator.reachedEndOfInput(SINK_0);
    context.advance(0);
    assertThat(context.triggered).containsExactly(1L);
  }

  @Test
  void aNewAttemptForgetsWhichSubtasksHadEndedTheirInput() {
    CheckpointCoordinator coordinator =
        started(new CheckpointSettings(60_000, TIMEOUT, 0, 1, 0, 1));
    coordinator.reachedEndOfInput(SOURCE_0);
    coordinator.reachedEndOfInput(SOURCE_1);

    coordinator.stop();
    coordinator.setTasks(TASKS);
    coordinator.start();
    coordinator.reachedEndOfInput(SINK_0);
    context.advance(1_000);

    assertThat(context.triggered).isEmpty();
  }

  @Test
  void triggerSoonDoesNothingWhileACheckpointIsPending() {
    CheckpointCoordinator coordinator =
        started(new CheckpointSettings(60_000, TIMEOUT, 0, 2, 0, 1));
    coordinator.triggerSoon();
    context.advance(0);
    assertThat(context.triggered).containsExactly(1L);

    coordinator.triggerSoon();
    context.advance(1_000);

    assertThat(context.triggered).containsExactly(1L);
  }

  @Test
  void triggerSoonStillHonoursTheMinPause() throws IOException {
    CheckpointCoordinator coordinator =
        started(new CheckpointSettings(60_000, TIMEOUT, 500, 1, 0, 1));
    coordinator.triggerSoon();
    context.advance(0);
    ackAll(coordinator, 1);
    long completedAt = context.now;

    coordinator.triggerSoon();
    context.advanceTo(completedAt + 499);
    assertThat(context.triggered).containsExactly(1L);
    context.advanceTo(completedAt + 500);
    assertThat(context.triggered).containsExactly(1L, 2L);
  }

  @Test
  void aStorageFailureAbortsTheCheckpointAndCountsAFailure() throws IOException {
    FailingCommits failing = new FailingCommits(storage, 1);
    CheckpointCoordinator coordinator = started(settings(0, 1, 5, 1), failing);
    long id = nextTrigger();

    ackAll(coordinator, id);

    assertThat(context.completed).isEmpty();
    assertThat(context.aborted).containsExactly(id);
    assertThat(coordinator.consecutiveFailures()).isEqualTo(1);
    assertThat(coordinator.latestCompleted()).isNull();
  }

  /**
   * BUG. When committing the metadata fails, {@code complete} (CheckpointCoordinator.java, the
   * {@code catch} around {@code storage.commitCheckpoint}) counts the failure and returns without
   * scheduling the next trigger. If the interval timer already fired while the checkpoint was
   * pending (max-concurrent reached, so it scheduled nothing), no timer is left: checkpointing
   * stops for good although the failure was tolerable. {@code abort} reschedules; this path does
   * not. Fix: route the storage failure through {@code abort(p, STORAGE_FAILURE, ...)} (which
   * discards, notifies, counts, sets the min-pause start and reschedules), or add the same {@code
   * if (running && cancelNextTrigger == null) scheduleTrigger(minPause)}.
   */
  @Test
  void checkpointingGoesOnAfterATolerableStorageFailure() throws IOException {
    FailingCommits failing = new FailingCommits(storage, 1);
    CheckpointCoordinator coordinator = started(settings(0, 1, 5, 1), failing);
    long id = nextTrigger();
    context.advance(2 * INTERVAL); // the interval timer fires and finds the checkpoint pending

    ackAll(coordinator, id);
    assertThat(context.aborted).containsExactly(id);

    context.advance(10 * INTERVAL);
    assertThat(context.triggered).as("checkpoints after the failed commit").hasSizeGreaterThan(1);
  }

  /**
   * A checkpoint every task acknowledged whose metadata is on its way to disk when the attempt ends
   * (a cancel, a failover) is retained: a user who saw its {@code _metadata} restores from it, as
   * from a Flink checkpoint whose finalization began. Its tasks hear nothing of it.
   */
  @Test
  void aCheckpointWhoseMetadataIsBeingWrittenWhenTheAttemptEndsIsRetainedQuietly()
      throws Exception {
    BlockingCommits blocking = new BlockingCommits(storage);
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1), blocking);
    long id = nextTrigger();
    Thread lastAck = acknowledgeAllInAnotherThread(coordinator, id, blocking);

    coordinator.stop();
    assertThat(coordinator.retained()).as("its metadata is not written yet").isEmpty();
    blocking.release.countDown();
    coordinator.awaitCommits();

    assertThat(ids(coordinator.retained())).containsExactly(id);
    assertThat(stored()).containsExactly(id);
    assertThat(context.completed).as("no task of the ended attempt hears of it").isEmpty();
    assertThat(context.aborted).isEmpty();
    assertThat(context.failures).isEmpty();
    lastAck.join();
  }

  /**
   * A job master that no longer leads gives such a checkpoint up: the next leader owns the store.
   */
  @Test
  void aCheckpointWhoseMetadataIsBeingWrittenWhenTheLeaderIsSuspendedIsGivenUp() throws Exception {
    BlockingCommits blocking = new BlockingCommits(storage);
    CheckpointCoordinator coordinator = started(settings(0, 1, 0, 1), blocking);
    long id = nextTrigger();
    Thread lastAck = acknowledgeAllInAnotherThread(coordinator, id, blocking);

    coordinator.suspend();
    blocking.release.countDown();
    coordinator.awaitCommits();

    assertThat(coordinator.retained()).isEmpty();
    assertThat(context.completed).isEmpty();
    assertThat(context.failures).isEmpty();
    lastAck.join();
  }

  /**
   * Acknowledges checkpoint {@code id} for every task, the last in a thread of its own that then
   * writes the metadata; returns once that write has begun.
   */
  private Thread acknowledgeAllInAnotherThread(
      CheckpointCoordinator coordinator, long id, BlockingCommits blocking) throws Exception {
    ack(coordinator, id, SOURCE_0);
    ack(coordinator, id, SOURCE_1);
    OperatorSubtaskState sinkState = state(id, SINK_0);
    Thread lastAck =
        new Thread(() -> coordinator.acknowledge(SINK_0, id, Map.of("sink-uid", sinkState)));
    lastAck.start();
    blocking.writing.await();
    return lastAck;
  }

  // ---------------------------------------------------------------------------------------------

  /** A storage whose metadata writes wait until the test releases them. */
  private static final class BlockingCommits extends DelegatingStorage {
    final java.util.concurrent.CountDownLatch writing = new java.util.concurrent.CountDownLatch(1);
    final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

    BlockingCommits(CheckpointStorage delegate) {
      super(delegate);
    }

    @Override
    public String commitCheckpoint(CompletedCheckpoint checkpoint) throws IOException {
      awaitRelease();
      return super.commitCheckpoint(checkpoint);
    }

    @Override
    public String commitSavepoint(CompletedCheckpoint savepoint, String location)
        throws IOException {
      awaitRelease();
      return super.commitSavepoint(savepoint, location);
    }

    private void awaitRelease() throws IOException {
      writing.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
  }

  /** A storage whose first {@code failures} commits fail. */
  private static final class FailingCommits extends DelegatingStorage {
    private int failures;

    FailingCommits(CheckpointStorage delegate, int failures) {
      super(delegate);
      this.failures = failures;
    }

    @Override
    public String commitCheckpoint(CompletedCheckpoint checkpoint) throws IOException {
      if (failures > 0) {
        failures--;
        throw new IOException("disk full while writing the metadata");
      }
      return super.commitCheckpoint(checkpoint);
    }
  }

  /** A storage that hands every call to another; subclasses change one. */
  private abstract static class DelegatingStorage implements CheckpointStorage {
    private final CheckpointStorage delegate;

    DelegatingStorage(CheckpointStorage delegate) {
      this.delegate = delegate;
    }

    @Override
    public StreamStateHandle writeState(long checkpointId, byte[] data, String description)
        throws IOException {
      return delegate.writeState(checkpointId, data, description);
    }

    @Override
    public byte[] readState(StreamStateHandle handle) throws IOException {
      return delegate.readState(handle);
    }

    @Override
    public io.weir.api.config.Configuration fileSystemConfiguration() {
      return delegate.fileSystemConfiguration();
    }

    @Override
    public String commitCheckpoint(CompletedCheckpoint checkpoint) throws IOException {
      return delegate.commitCheckpoint(checkpoint);
    }

    @Override
    public void discardCheckpoint(long checkpointId) throws IOException {
      delegate.discardCheckpoint(checkpointId);
    }

    @Override
    public List<CompletedCheckpoint> loadRetained(List<String> problems) throws IOException {
      return delegate.loadRetained(problems);
    }
  }

  /**
   * The coordinator's outside world: a clock that moves only when the test says, timers that fire
   * in due order as it moves, and a log of the messages to the tasks.
   */
  static final class ManualContext implements CheckpointCoordinatorContext {

    /** One scheduled action. */
    static final class Timer {
      final long due;
      final long sequence;
      final Runnable action;
      boolean cancelled;
      boolean fired;

      Timer(long due, long sequence, Runnable action) {
        this.due = due;
        this.sequence = sequence;
        this.action = action;
      }

      @Override
      public String toString() {
        return "timer@" + due + (cancelled ? " cancelled" : "") + (fired ? " fired" : "");
      }
    }

    long now = START;
    private long sequence;
    final List<Timer> timers = new ArrayList<>();
    final List<Long> triggered = new ArrayList<>();
    final List<Long> triggerTimes = new ArrayList<>();
    final List<CheckpointOptions> triggerOptions = new ArrayList<>();
    final List<Long> completed = new ArrayList<>();
    final List<Long> aborted = new ArrayList<>();
    final List<Throwable> failures = new ArrayList<>();

    /** Where subtasks run, as a deployment would say; absent: not known. */
    final Map<TaskKey, String> locations = new HashMap<>();

    /** How far the wall clock was stepped from the clock that only moves forward ({@link #now}). */
    long wallClockStep;

    @Override
    public long currentTimeMillis() {
      return now + wallClockStep;
    }

    @Override
    public long relativeTimeMillis() {
      return now;
    }

    @Override
    public Runnable schedule(Runnable action, long delayMillis) {
      assertThat(delayMillis).as("delay").isNotNegative();
      Timer timer = new Timer(now + delayMillis, sequence++, action);
      timers.add(timer);
      return () -> timer.cancelled = true;
    }

    @Override
    public void triggerSources(long checkpointId, long timestamp, CheckpointOptions options) {
      assertThat(timestamp).isEqualTo(currentTimeMillis());
      triggered.add(checkpointId);
      triggerTimes.add(timestamp);
      triggerOptions.add(options);
    }

    @Override
    public void notifyComplete(long checkpointId) {
      completed.add(checkpointId);
    }

    @Override
    public void notifyAborted(long checkpointId) {
      aborted.add(checkpointId);
    }

    @Override
    public void failJob(Throwable cause) {
      failures.add(cause);
    }

    @Override
    public String locationOf(TaskKey task) {
      return locations.get(task);
    }

    /** The timers neither fired nor cancelled, earliest first. */
    List<Timer> live() {
      return timers.stream()
          .filter(t -> !t.cancelled && !t.fired)
          .sorted(Comparator.comparingLong((Timer t) -> t.due).thenComparingLong(t -> t.sequence))
          .toList();
    }

    /** Moves the clock to the earliest live timer and fires it; false if there is none. */
    boolean fireNext() {
      List<Timer> live = live();
      if (live.isEmpty()) {
        return false;
      }
      Timer next = live.get(0);
      now = Math.max(now, next.due);
      next.fired = true;
      next.action.run();
      return true;
    }

    /** Moves the clock to {@code time}, firing every timer due by then in due order. */
    void advanceTo(long time) {
      while (true) {
        List<Timer> live = live();
        if (live.isEmpty() || live.get(0).due > time) {
          break;
        }
        fireNext();
      }
      now = Math.max(now, time);
    }

    void advance(long millis) {
      advanceTo(now + millis);
    }
  }
}
