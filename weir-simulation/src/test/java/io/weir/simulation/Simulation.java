package io.weir.simulation;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.CheckpointCoordinator.OperatorInfo;
import io.weir.runtime.checkpoint.CheckpointCoordinator.TaskKey;
import io.weir.runtime.checkpoint.CheckpointCoordinatorContext;
import io.weir.runtime.checkpoint.CheckpointIDCounter;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.CheckpointSettings;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CompletedCheckpointStore;
import io.weir.runtime.checkpoint.CompletedStop;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.checkpoint.InFlightData;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.InputChannelStateHandle;
import io.weir.runtime.checkpoint.InputChannelStateRecorder;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.StateAssignment;
import io.weir.runtime.checkpoint.SubtaskStateCodec;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelEvent.CancelCheckpointMarker;
import io.weir.runtime.network.ChannelEvent.CheckpointBarrier;
import io.weir.runtime.network.ChannelEvent.EndOfData;
import io.weir.runtime.network.ChannelEvent.EndOfPartition;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.InputGate;
import io.weir.runtime.network.RecordDeserializer;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.CheckpointStorageCoordinatorView;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.DamagedStateException;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.StreamStateHandle;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.task.Waker;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.time.WatermarkValve;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;

/**
 * One run of the checkpoint protocol under faults, on one thread, from one seed. The real {@link
 * CheckpointCoordinator} (with its completed-checkpoint store, shared-state registry and cleaner)
 * writes through the real {@link FileSystemCheckpointStorage} over a {@link SimFileSystem}; the
 * model tasks align with the real {@link BarrierHandler}, write their state through the storage's
 * task view and restore through {@link StateAssignment} and {@link TaskRestore}. Everything else —
 * the job master's attempts and restarts, the control-plane messages, the channels, the tasks'
 * logic and the external system the sink commits to — is modelled here, small.
 *
 * <p>Time is virtual: a priority queue of (time, sequence, action). Every random choice comes from
 * one {@link Random} seeded with the run's seed, so a seed replays exactly. An invariant that
 * breaks ends the run with a {@link Violation}, reported in the {@link Result} with the trace's
 * tail.
 */
final class Simulation {

  /** A broken invariant. */
  static final class Violation extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String invariant;

    Violation(String invariant, String message) {
      super(invariant + ": " + message);
      this.invariant = invariant;
    }
  }

  /**
   * How a run ended.
   *
   * @param violation the broken invariant's message, or null
   * @param invariant the broken invariant's name, or null
   * @param faults faults injected
   * @param faultsByKind the same by kind
   * @param completed checkpoints completed
   * @param savepoints savepoints completed (asked for by the seed, not counted as faults)
   * @param savepointsFailed savepoints that failed or expired (refused ones not counted)
   * @param resumes times the user cancelled the job and resumed it from a savepoint
   * @param rescaledResumes resumes at another parallelism of the counters than the job before
   * @param restarts attempts restarted (task failures, checkpoint failures, job master failovers)
   * @param virtualMillis virtual time at the end
   * @param traceHash a digest of the whole trace: equal for equal seeds
   * @param traceTail the last lines of the trace
   * @param readFaults whether the run had the storage's read-side faults
   * @param unaligned whether the run checkpointed unaligned
   * @param inFlightCheckpoints checkpoints completed that hold in-flight data
   * @param inFlightRestores task restores that replayed in-flight data
   * @param stops stop-with-savepoints triggered (not refused)
   * @param stopsCompleted stop-with-savepoints that completed and ended the job
   * @param drainedStops of the stops, those with drain ({@code SAVEPOINT_TERMINATE})
   * @param drainedStopsCompleted drained stops that completed and ended the job
   * @param drainedStopsFailed drained stops whose savepoint failed: the job fails over, unless its
   *     attempt was ending already
   */
  record Result(
      long seed,
      String violation,
      String invariant,
      int faults,
      Map<String, Integer> faultsByKind,
      int completed,
      int savepoints,
      int savepointsFailed,
      int resumes,
      int rescaledResumes,
      int restarts,
      long virtualMillis,
      long traceHash,
      List<String> traceTail,
      boolean readFaults,
      boolean unaligned,
      int inFlightCheckpoints,
      int inFlightRestores,
      int stops,
      int stopsCompleted,
      int drainedStops,
      int drainedStopsCompleted,
      int drainedStopsFailed) {

    boolean ok() {
      return violation == null;
    }

    /** The seed, what broke, and the last steps before it: enough to replay and read. */
    String replay() {
      StringBuilder s = new StringBuilder();
      s.append("seed ")
          .append(seed)
          .append(": ")
          .append(violation)
          .append("\n  rerun: mvn -pl weir-simulation -am verify -Dtest=SimChaosTest")
          .append(" -Dsurefire.failIfNoSpecifiedTests=false -Dweir.sim.seed=")
          .append(seed)
          .append(readFaults ? " -Dweir.sim.readFaults=true" : "")
          .append("\n  last steps:\n");
      traceTail.forEach(line -> s.append("    ").append(line).append('\n'));
      return s.toString();
    }
  }

  // ------------------------------------------------------------------ the job's shape

  private static final int SOURCES = 2;

  /** The counters' parallelism in the first job; a job resumed from a savepoint draws its own. */
  private static final int COUNTERS = 2;

  /** A resumed job runs its counters at a parallelism of 1 up to this. */
  private static final int MAX_COUNTERS = 4;

  private static final int MAX_PARALLELISM = 128;
  private static final int KEYS = 6;
  private static final String SRC = "src";
  private static final String COUNT = "count";
  private static final String SINK = "sink";
  private static final int TAIL = Integer.getInteger("weir.sim.tail", 40);
  private static final AtomicInteger SCHEMES = new AtomicInteger();
  private static final boolean READ_FAULTS = Boolean.getBoolean("weir.sim.readFaults");

  /**
   * The user now and then stops the job with a savepoint (see {@link #stopWithSavepoint}); {@code
   * -Dweir.sim.stops=false} runs without.
   */
  private static final boolean STOPS =
      Boolean.parseBoolean(System.getProperty("weir.sim.stops", "true"));

  /** {@code -Dweir.sim.unaligned=false} runs every seed aligned (as before unaligned runs). */
  private static final boolean UNALIGNED_RUNS =
      Boolean.parseBoolean(System.getProperty("weir.sim.unaligned", "true"));

  private final boolean readFaults;

  /**
   * A record of source {@code src} at offset {@code idx}, at event time {@code ts} (0 unless the
   * run checkpoints unaligned).
   */
  private record Rec(int src, int idx, int key, long ts) {}

  /**
   * What the counter emits: key {@code key} reached {@code count} with that record, which the
   * counter took for {@code late} (behind its channel's watermark; never in aligned runs).
   */
  private record Out(int key, int count, int src, int idx, boolean late) {}

  // ------------------------------------------------------------------ run settings

  private final long seed;
  private final Set<Mutation> mutations;
  private final Random rng;

  /** When the user asks for savepoints: apart from {@link #rng}, so the faults' draws stay. */
  private final Random savepointRng;

  private final int records;
  private final int[][] keysOf; // per source, per offset
  private final CheckpointSettings settings;

  /**
   * Unaligned checkpoints (a third of the seeds, drawn apart from {@link #rng}, so that the other
   * seeds keep their schedules): the tasks with inputs read through the runtime's {@link
   * InputGate}, {@link InputChannelStateRecorder} and {@link WatermarkValve}, and the sources emit
   * watermarks.
   */
  private final boolean unaligned;

  /** Unaligned runs: per source and offset, the record's event time. */
  private final long[][] tsOf;

  /** Unaligned runs: per source and offset, the watermark emitted after it, or none (MIN). */
  private final long[][] watermarkAfter;

  /** Unaligned runs: per source and offset, the highest watermark emitted before it. */
  private final long[][] watermarkBefore;

  /** Unaligned runs: per source and offset, late in the uninterrupted run (ts below it). */
  private final boolean[][] lateOf;

  private int inFlightCheckpoints; // completed checkpoints holding in-flight data
  private int inFlightRestores; // task restores that replayed in-flight data
  private final int faultBudget;
  private final long faultWindowEnd;

  // ------------------------------------------------------------------ scheduler and trace

  private final PriorityQueue<Event> queue =
      new PriorityQueue<>(
          (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
  private long now;
  private long seq;
  private final ArrayDeque<String> tail = new ArrayDeque<>();
  private final CRC32 traceCrc = new CRC32();
  private long traceLines;

  private static final class Event {
    final long time;
    final long seq;
    final Runnable action;
    boolean cancelled;

    Event(long time, long seq, Runnable action) {
      this.time = time;
      this.seq = seq;
      this.action = action;
    }
  }

  // ------------------------------------------------------------------ faults

  /** A violation thrown where the code under test may catch it; the loop throws it again. */
  private Violation caught;

  private int faults;
  private final Map<String, Integer> faultsByKind = new TreeMap<>();
  private boolean checking; // invariant checks read storage without faults
  private long quietSince = -1;

  // ------------------------------------------------------------------ storage

  private final String scheme;
  private final SimFileSystem fs;
  private final SimSavepoints savepoints;
  private FileSystemCheckpointStorage
      storage; // the job's; a job resumed from a savepoint has its own
  private String jobDir;
  private String jobId;
  private int job; // the user's submissions: a resume from a savepoint is the next
  private int resumes;

  /**
   * The current job's counter parallelism: {@link #COUNTERS} for the first job, drawn anew for each
   * resumed one ({@link #resumeJob}), so that its restore splits and merges key groups.
   */
  private int counters = COUNTERS;

  /** Resumes whose job runs its counters at another parallelism than the job it resumes. */
  private int rescaledResumes;

  /** The resumed jobs' counter parallelism: apart from {@link #rng}, so the faults' draws stay. */
  private final Random parallelismRng;

  /** The savepoint the job was resumed from, as loaded from its path; null for the first job. */
  private io.weir.runtime.storage.RetainedCheckpoint initialRestore;

  /**
   * The outputs the resumed job took over from its savepoint (its sink's committed and pending).
   */
  private List<Out> inherited = List.of();

  private final Map<String, Integer> txnJob = new HashMap<>();
  private SimSavepoints.Completed resumeFrom; // set while the user cancels the job to resume it
  private CheckpointStateReader restoreReader; // where the attempt's tasks read their state
  private final Path scratch;

  // ------------------------------------------------------------------ the job master (modelled)

  private CheckpointCoordinator coordinator;
  private int generation; // one per job master; a failover starts the next
  private int attempt = -1;
  private final Map<ExecutionAttemptId, Task> current = new LinkedHashMap<>();
  private final Set<ExecutionAttemptId> terminated = new HashSet<>();
  private boolean failing;
  private final Set<Long> unrestorable = new HashSet<>();
  private boolean claimed; // whether the attempt's restored databases keep their ids
  private boolean damaged; // a completed checkpoint's file was damaged: records may come twice
  private int restarts;
  private int restartsSinceCompletion;
  private int restartsWhileQuiet;
  private boolean jobFinished;

  /**
   * Whether the current job's end is recorded (the JobManager's dirty job result, written before
   * the job's clean-up): a job master taking over then does not run the job again.
   */
  private boolean endRecorded;

  private int completed;

  // ------------------------------------------------------------------ the external system

  private enum Txn {
    PREPARED,
    COMMITTED,
    ABORTED
  }

  private final Map<String, Txn> txns = new LinkedHashMap<>();
  private final Map<String, List<Out>> txnRecords = new HashMap<>();

  private Simulation(long seed, Set<Mutation> mutations, boolean readFaults) {
    this.seed = seed;
    this.readFaults = readFaults;
    this.mutations =
        mutations.isEmpty() ? EnumSet.noneOf(Mutation.class) : EnumSet.copyOf(mutations);
    this.rng = new Random(seed);
    this.savepointRng = new Random(~seed);
    this.stopRng = new Random(seed * 0x2545F4914F6CDD1DL + 7);
    this.drainRng = new Random(seed * 0x9E3779B97F4A7C15L + 17);
    this.clockRng = new Random(seed * 0x9E3779B97F4A7C15L + 11);
    this.parallelismRng = new Random(seed * 0x2545F4914F6CDD1DL + 13);
    this.records = 30 + rng.nextInt(40);
    this.keysOf = new int[SOURCES][records];
    for (int s = 0; s < SOURCES; s++) {
      for (int i = 0; i < records; i++) {
        keysOf[s][i] = rng.nextInt(KEYS);
      }
    }
    this.settings =
        new CheckpointSettings(
            8 + rng.nextInt(20), // interval
            40 + rng.nextInt(80), // timeout
            rng.nextInt(6), // min pause
            1 + rng.nextInt(2), // max concurrent
            rng.nextInt(4), // tolerable failures
            1 + rng.nextInt(3)); // retained
    this.faultBudget = 6 + rng.nextInt(10);
    this.faultWindowEnd = 600 + rng.nextInt(1500);
    Random eventTime = new Random(seed * 0x9E3779B97F4A7C15L + 44);
    this.unaligned = UNALIGNED_RUNS ? eventTime.nextInt(3) == 0 : false;
    this.tsOf = new long[SOURCES][records];
    this.watermarkAfter = new long[SOURCES][records];
    this.watermarkBefore = new long[SOURCES][records + 1];
    this.lateOf = new boolean[SOURCES][records];
    for (int s = 0; s < SOURCES; s++) {
      long maxTs = Long.MIN_VALUE;
      watermarkBefore[s][0] = Long.MIN_VALUE;
      for (int i = 0; i < records; i++) {
        // Out of order by up to 60; a watermark now and then, 20 behind the highest event time:
        // about one record in five comes behind it, late.
        tsOf[s][i] = i * 10L + eventTime.nextInt(60);
        lateOf[s][i] = tsOf[s][i] < watermarkBefore[s][i];
        maxTs = Math.max(maxTs, tsOf[s][i]);
        watermarkAfter[s][i] = eventTime.nextInt(3) == 0 ? maxTs - 20 : Long.MIN_VALUE;
        watermarkBefore[s][i + 1] = Math.max(watermarkBefore[s][i], watermarkAfter[s][i]);
      }
    }
    this.scheme = "sim" + SCHEMES.incrementAndGet();
    this.fs = new SimFileSystem(scheme, new FsFaults());
    this.savepoints = new SimSavepoints(scheme);
    FileSystems.register(scheme, fs);
    this.jobId = String.format("%032x", seed);
    this.storage = new FileSystemCheckpointStorage(URI.create(scheme + ":///ckpt"), jobId, 24);
    this.jobDir = "/ckpt/" + jobId;
    try {
      this.scratch = Files.createTempFile("weir-sim", ".sst");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Runs the seed with the given planted bugs; reads fail and files of completed checkpoints are
   * damaged only with {@code -Dweir.sim.readFaults}.
   */
  static Result run(long seed, Set<Mutation> mutations) {
    return run(seed, mutations, READ_FAULTS);
  }

  /**
   * Runs the seed with the given planted bugs, and with the storage's read-side faults (reads that
   * fail now and then, a damaged file of the newest retained checkpoint) or not.
   */
  static Result run(long seed, Set<Mutation> mutations, boolean readFaults) {
    Simulation sim = new Simulation(seed, mutations, readFaults);
    try {
      return sim.run();
    } finally {
      FileSystems.unregister(sim.scheme);
      try {
        Files.deleteIfExists(sim.scratch);
      } catch (IOException e) {
        // a temporary file; nothing depends on it
      }
    }
  }

  private Result run() {
    String violation = null;
    String invariant = null;
    try {
      startJobMaster(false);
      chaosTick();
      at(20 + savepointRng.nextInt(60), this::savepointTick);
      loop();
      checkEnd();
    } catch (Violation v) {
      violation = v.getMessage();
      invariant = v.invariant;
      trace("VIOLATION " + v.getMessage());
    }
    return new Result(
        seed,
        violation,
        invariant,
        faults + clockSteps,
        Map.copyOf(faultsByKind),
        completed,
        savepoints.completedCount(),
        savepoints.failedCount(),
        resumes,
        rescaledResumes,
        restarts,
        now,
        traceCrc.getValue() ^ (traceLines << 40),
        List.copyOf(tail),
        readFaults,
        unaligned,
        inFlightCheckpoints,
        inFlightRestores,
        stops,
        stopsCompleted,
        drainedStops,
        drainedStopsCompleted,
        drainedStopsFailed);
  }

  private void loop() {
    while (!jobFinished) {
      if (quietSince >= 0 && now > quietSince + 20_000) {
        throw new Violation(
            "liveness",
            "the job has not finished 20 s (virtual) after the last fault; "
                + completed
                + " checkpoints completed, attempt "
                + attempt);
      }
      Event e = queue.poll();
      if (e == null) {
        throw new Violation("liveness", "nothing left to do, but the job has not finished");
      }
      if (e.cancelled) {
        continue;
      }
      now = e.time;
      if (quietSince < 0 && !faultsActive()) {
        quietSince = now;
        trace("faults stop");
      }
      try {
        e.action.run();
        if (caught != null) {
          throw caught;
        }
      } catch (Violation v) {
        throw v;
      } catch (RuntimeException ex) {
        java.io.StringWriter w = new java.io.StringWriter();
        ex.printStackTrace(new java.io.PrintWriter(w));
        String stack = w.toString();
        throw new Violation(
            "no-crash",
            "an exception escaped: " + stack.substring(0, Math.min(1500, stack.length())));
      }
    }
  }

  // ------------------------------------------------------------------ scheduler helpers

  private Event at(long delay, Runnable action) {
    Event e = new Event(now + Math.max(0, delay), seq++, action);
    queue.add(e);
    return e;
  }

  private static final java.util.regex.Pattern RANDOM_NAMES =
      java.util.regex.Pattern.compile(
          "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|sim\\d+:"
              + "|savepoint-[0-9a-f]{6}-[0-9a-f]{12}");

  private void trace(String line) {
    // File names carry random UUIDs (FileSystemCheckpointStorage) and each run its own scheme:
    // the trace leaves them out, so a seed's trace is the same in every run.
    String l = "t=" + now + " " + RANDOM_NAMES.matcher(line).replaceAll("~");
    byte[] b = l.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    traceCrc.update(b, 0, b.length);
    traceLines++;
    tail.addLast(l);
    if (tail.size() > TAIL) {
      tail.removeFirst();
    }
  }

  /** Into the digest only (records flow), not the tail. */
  private void digest(int a, int b, int c) {
    traceCrc.update(a);
    traceCrc.update(b);
    traceCrc.update(c);
  }

  private boolean faultsActive() {
    return faults < faultBudget && now < faultWindowEnd;
  }

  private boolean fault(String kind, double p) {
    if (checking || !faultsActive() || rng.nextDouble() >= p) {
      return false;
    }
    faults++;
    faultsByKind.merge(kind, 1, Integer::sum);
    trace("FAULT " + kind);
    return true;
  }

  /** A control-plane message: delayed, reordered, sometimes late, and (if losable) lost. */
  private void rpc(String what, boolean losable, Runnable deliver) {
    if (losable && fault("rpc-lost", 0.02)) {
      trace("lost " + what);
      return;
    }
    long delay = 1 + rng.nextInt(6);
    if (rng.nextInt(100) < 8) {
      delay += rng.nextInt(40);
    }
    if (fault("rpc-late", 0.02)) {
      delay += 100 + rng.nextInt(200);
    }
    at(delay, deliver);
  }

  private final class FsFaults implements SimFileSystem.Faults {
    @Override
    public SimFileSystem.WriteOutcome write(String path) {
      if (fault("write-fails", 0.03)) {
        return SimFileSystem.WriteOutcome.FAIL;
      }
      if (fault("write-partial", 0.02)) {
        return SimFileSystem.WriteOutcome.PARTIAL;
      }
      return SimFileSystem.WriteOutcome.OK;
    }

    @Override
    public boolean failRead(String path) {
      // Only in the runs with the storage's read-side faults (SimStorageFaultsTest), so that
      // SimChaosTest's seeds keep their schedules.
      return readFaults && fault("read-fails", 0.02);
    }

    @Override
    public boolean failRename(String to) {
      return fault("rename-fails", 0.04);
    }

    @Override
    public void beforeDelete(String path, boolean recursive) {
      checkDelete(path, recursive);
    }
  }

  // ------------------------------------------------------------------ the job master (modelled)

  /**
   * A job master takes the job: the first at the start; on a failover, a new one that recovers the
   * completed checkpoints from storage and counts checkpoint ids on from the newest of them, as
   * {@code JobMaster} does for a job it resumes from a checkpoint. Ids above that newest one were
   * maybe used by the lost job master already: only the attempt number tells their late
   * acknowledgements from new ones.
   */
  private void startJobMaster(boolean recover) {
    generation++;
    if (recover && endRecorded) {
      // As LeaderSession.jobsToRecover: a job with a result is not run again.
      trace("job master " + generation + " takes over; job " + job + " ended: not run again");
      if (pendingResume != null) {
        resumeLater(pendingResume);
      }
      return;
    }
    List<CompletedCheckpoint> recovered = new ArrayList<>();
    if (recover) {
      List<String> problems = new ArrayList<>();
      checking = true; // what the store on ZooKeeper would hand over, read without faults
      try {
        recovered.addAll(storage.loadRetained(problems));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        checking = false;
      }
      problems.forEach(p -> trace("recovery: " + p));
    }
    savepoints.jobMasterChanged();
    stopFailed();
    failedAfterStop = null;
    for (CompletedCheckpoint c : recovered) {
      if (c.savepoint()) {
        throw new Violation(
            "savepoint-not-retained", "a new job master recovers savepoint " + c.checkpointId());
      }
    }
    // As JobMaster: the ids count on from the newest recovered checkpoint, or from the savepoint
    // the job was resumed from.
    long lastId =
        Math.max(
            recovered.isEmpty() ? 0 : recovered.get(0).checkpointId(),
            initialRestore == null ? 0 : initialRestore.checkpoint().checkpointId());
    int gen = generation;
    coordinator = newCoordinator(gen, lastId, recovered);
    unrestorable.clear();
    trace("job master " + gen + " takes the job; recovered " + ids(recovered));
    CompletedStop stop = coordinator.completedStop();
    if (stop != null) {
      // As Scheduler.deployFirstAttempt: the stop completed under the lost job master, whose
      // tasks may have committed the savepoint's transactions; the job fails naming it. The lost
      // job master's tasks are gone, their late reports fenced (a new leader numbers its own).
      attempt++;
      current.clear();
      terminated.clear();
      failedAfterStop = savepointOf(stop);
      jobFailedAfterStop();
      return;
    }
    deploy();
  }

  /**
   * The completed savepoint of the stop the store recorded; read back now if its stop failed after
   * all (its record's outcome unknown).
   */
  private SimSavepoints.Completed savepointOf(CompletedStop stop) {
    for (SimSavepoints.Completed c : savepoints.completed()) {
      if (c.pointer().equals(stop.path())) {
        return c;
      }
    }
    savepointCompleted(stop.savepointId(), stop.path());
    return savepointOf(stop);
  }

  /**
   * What ZooKeeper holds of each job's completed stop-with-savepoint ({@code
   * ZooKeeperCompletedCheckpointStore#stopCompleted}): written only by the job master that leads,
   * and it survives a failover. A write may be refused (nothing recorded), or be applied with its
   * outcome unknown to the job master, which then counts it as recorded.
   */
  private final Map<String, CompletedStop> recordedStops = new HashMap<>();

  /** The generation of the job master that recorded each job's stop. */
  private final Map<String, Integer> recordedBy = new HashMap<>();

  /** The completed-checkpoint store of job master {@code gen}: retained checkpoints, and stops. */
  private CompletedCheckpointStore store(int gen, List<CompletedCheckpoint> recovered) {
    CompletedCheckpointStore retained =
        CompletedCheckpointStore.inMemory(settings.numRetained(), recovered);
    String ofJob = jobId;
    return new CompletedCheckpointStore() {
      @Override
      public List<CompletedCheckpoint> add(CompletedCheckpoint checkpoint) {
        return retained.add(checkpoint);
      }

      @Override
      public List<CompletedCheckpoint> all() {
        return retained.all();
      }

      @Override
      public List<CompletedCheckpoint> removeAll() {
        return retained.removeAll();
      }

      @Override
      public void stopCompleted(CompletedStop stop) {
        if (gen != generation) {
          throw new IllegalStateException("fenced: job master " + gen + " no longer leads");
        }
        if (fault("stop-record-refused", 0.1)) {
          throw new IllegalStateException("simulated: ZooKeeper refused the stop's record");
        }
        recordedStops.put(ofJob, stop);
        recordedBy.put(ofJob, gen);
        if (fault("stop-record-unknown", 0.1)) {
          throw new IllegalStateException("simulated: the stop's record has an unknown outcome");
        }
        trace("the stop with savepoint " + stop.savepointId() + " is recorded");
      }

      @Override
      public CompletedStop completedStop() {
        if (mutations.contains(Mutation.STOP_NOT_RECORDED)
            && recordedBy.containsKey(ofJob)
            && gen != recordedBy.get(ofJob)) {
          return null; // only the job master that completed it knows of it
        }
        return recordedStops.get(ofJob);
      }
    };
  }

  private static List<Long> ids(List<CompletedCheckpoint> checkpoints) {
    List<Long> ids = new ArrayList<>();
    checkpoints.forEach(c -> ids.add(c.checkpointId()));
    return ids;
  }

  /** The coordinator's context for one job master; a deposed one's calls do nothing. */
  private final class Context implements CheckpointCoordinatorContext {
    private final int gen;

    Context(int gen) {
      this.gen = gen;
    }

    private boolean deposed() {
      return gen != generation;
    }

    /** The completed stops this job master told the tasks of. */
    private final Set<Long> stopsTold = new HashSet<>();

    @Override
    public long currentTimeMillis() {
      return now + wallClockStep;
    }

    @Override
    public long relativeTimeMillis() {
      // Planted: min pause measured on the wall clock, as before CheckpointCoordinatorContext had a
      // clock that only moves forward.
      return mutations.contains(Mutation.WAITS_ON_WALL_CLOCK) ? now + wallClockStep : now;
    }

    @Override
    public Runnable schedule(Runnable action, long delayMillis) {
      Event e =
          at(
              delayMillis,
              () -> {
                if (!deposed()) {
                  action.run();
                }
              });
      return () -> e.cancelled = true;
    }

    @Override
    public void triggerSources(long checkpointId, long timestamp, CheckpointOptions options) {
      if (deposed()) {
        return;
      }
      trace("trigger " + checkpointId);
      for (Task t : current.values()) {
        if (t instanceof SourceTask s) {
          rpc(
              "trigger " + checkpointId + " to " + s.id,
              true,
              () -> s.trigger(checkpointId, options));
        }
      }
    }

    @Override
    public void notifyComplete(long checkpointId) {
      if (deposed()) {
        return;
      }
      if (savepoints.isSavepoint(checkpointId)) {
        // Only a stop-with-savepoint is told to the tasks (CheckpointFinalizer.completeSavepoint):
        // it is final, every task ends.
        if (!stopsTold.add(checkpointId) && mutations.contains(Mutation.STOP_TOLD_ONCE)) {
          return; // a coordinator that tells the stop's completion only once
        }
        trace("completed savepoint " + checkpointId);
        checkNoSavepointRetained();
        notifyTasks(checkpointId, coordinator.isFinal(checkpointId));
        return;
      }
      completed++;
      restartsSinceCompletion = 0;
      restartsWhileQuiet = 0;
      trace("completed " + checkpointId + " retained " + ids(coordinator.retained()));
      checkCut(checkpointId);
      checkNoSavepointRetained();
      notifyTasks(checkpointId, coordinator.isFinal(checkpointId));
    }

    private void notifyTasks(long checkpointId, boolean isFinal) {
      int copies = mutations.contains(Mutation.DOUBLE_NOTIFY) ? 2 : 1;
      for (Task t : current.values()) {
        for (int i = 0; i < copies; i++) {
          rpc(
              "complete " + checkpointId + " to " + t.id,
              true,
              () -> t.notifyComplete(checkpointId, isFinal));
        }
      }
    }

    @Override
    public void notifyAborted(long checkpointId) {
      if (deposed()) {
        return;
      }
      trace("aborted " + checkpointId);
      for (Task t : current.values()) {
        rpc("abort " + checkpointId + " to " + t.id, true, () -> t.notifyAborted(checkpointId));
      }
    }

    @Override
    public void failJob(Throwable cause) {
      if (deposed()) {
        return;
      }
      int failedAttempt = attempt;
      at(
          0,
          () -> {
            if (!deposed() && attempt == failedAttempt) {
              failAttempt(cause);
            }
          });
    }

    @Override
    public java.util.concurrent.Executor ioExecutor() {
      return command ->
          at(
              rng.nextInt(4),
              () -> {
                if (!deposed()) { // a deposed job master deletes nothing
                  command.run();
                }
              });
    }
  }

  /** The job's operators, the counters at the current job's parallelism. */
  private List<OperatorInfo> operators() {
    return List.of(
        new OperatorInfo(SRC, "source", 0, SOURCES, MAX_PARALLELISM),
        new OperatorInfo(COUNT, "count", 1, counters, MAX_PARALLELISM),
        new OperatorInfo(SINK, "sink", 2, 1, MAX_PARALLELISM));
  }

  /**
   * A job master's coordinator of generation {@code gen}, its ids counting on from {@code lastId},
   * with {@code recovered} as its retained checkpoints.
   */
  private CheckpointCoordinator newCoordinator(
      int gen, long lastId, List<CompletedCheckpoint> recovered) {
    CheckpointCoordinator c =
        new CheckpointCoordinator(
            jobId,
            settings,
            operators(),
            new StorageView(),
            new Context(gen),
            CheckpointIDCounter.inMemory(lastId),
            store(gen, recovered));
    if (unaligned) {
      c.setCheckpointAlignment(BarrierHandler.Alignment.UNALIGNED);
    }
    return c;
  }

  /** Deploys the next attempt from the newest restorable retained checkpoint (or fresh). */
  private void deploy() {
    attempt++;
    failing = false;
    terminated.clear();
    current.clear();
    CompletedCheckpoint from;
    try {
      from = newestRestorable();
    } catch (IOException e) {
      // As the scheduler: a read that failed (the file may be intact) fails the attempt as any
      // failure does, and the next attempt tries the same checkpoint again.
      trace("attempt " + attempt + " cannot start: " + e.getMessage());
      failing = true;
      onAttemptEnded();
      return;
    }
    boolean fromSavepoint = initialRestore != null && from == initialRestore.checkpoint();
    if (from != null
        && !fromSavepoint
        && (from.savepoint() || savepoints.isSavepoint(from.checkpointId()))) {
      throw new Violation(
          "savepoint-not-retained",
          "attempt " + attempt + " restores savepoint " + from.checkpointId());
    }
    if (fromSavepoint) {
      for (CompletedCheckpoint c : coordinator.retained()) {
        if (!unrestorable.contains(c.checkpointId())) {
          throw new Violation(
              "savepoint-not-retained",
              "attempt "
                  + attempt
                  + " restores the savepoint the job was resumed from over its checkpoint "
                  + c.checkpointId());
        }
      }
    }
    restoreReader = fromSavepoint ? initialRestore.storage() : storage;
    // As the scheduler: the databases restored go on under their ids only from the newest retained
    // checkpoint; after a fallback they start anew, so their files never take the names of the
    // newer (unrestorable, still registered) checkpoint's files.
    claimed =
        from != null
            && !fromSavepoint
            && from.checkpointId() == coordinator.retained().get(0).checkpointId();
    trace(
        "attempt "
            + attempt
            + " deploys from "
            + (from == null ? "nothing" : from.checkpointId() + (claimed ? "" : ", unclaimed")));
    List<SourceTask> sources = new ArrayList<>();
    List<CountTask> countTasks = new ArrayList<>();
    for (int i = 0; i < SOURCES; i++) {
      sources.add(new SourceTask(i, from));
    }
    for (int i = 0; i < counters; i++) {
      countTasks.add(new CountTask(i, from));
    }
    SinkTask sink = new SinkTask(from);
    for (SourceTask s : sources) {
      for (CountTask c : countTasks) {
        s.outputs.add(c.newInput());
      }
    }
    for (CountTask c : countTasks) {
      c.outputs.add(sink.newInput());
    }
    List<Task> all = new ArrayList<>(sources);
    all.addAll(countTasks);
    all.add(sink);
    Set<TaskKey> keys = new HashSet<>();
    for (Task t : all) {
      current.put(t.id, t);
      keys.add(t.key);
    }
    coordinator.setTasks(keys);
    for (Task t : all) {
      t.setUpInputs();
      at(1 + rng.nextInt(3), t::start);
    }
    coordinator.start();
    if (from != null && restarts > 0) {
      coordinator.discardOrphanedState();
    }
  }

  /**
   * The newest retained checkpoint whose files all read back intact, as the scheduler's {@code
   * RestorableCheckpoints} picks it (its verifier reads on a pool; here on the one thread). One
   * with a missing or damaged file is marked unrestorable; a read that fails otherwise marks
   * nothing and is thrown.
   */
  private CompletedCheckpoint newestRestorable() throws IOException {
    if (initialRestore != null && mutations.contains(Mutation.RESTORE_SAVEPOINT_OVER_CHECKPOINT)) {
      return initialRestore.checkpoint();
    }
    List<CompletedCheckpoint> retained = coordinator.retained();
    for (CompletedCheckpoint c : retained) {
      if (unrestorable.contains(c.checkpointId())) {
        continue;
      }
      try {
        for (OperatorState op : c.operators()) {
          for (OperatorSubtaskState st : op.subtasks()) {
            for (StreamStateHandle h : st.handles()) {
              storage.verifyState(h);
            }
          }
        }
        return c;
      } catch (DamagedStateException e) {
        trace("checkpoint " + c.checkpointId() + " unrestorable: " + e.getMessage());
        unrestorable.add(c.checkpointId());
      }
    }
    if (initialRestore != null) {
      // As RestorableCheckpoints: after the job's own checkpoints, the savepoint it started from.
      return initialRestore.checkpoint();
    }
    if (!retained.isEmpty()) {
      throw new Violation(
          "liveness",
          "the job fails: none of the retained checkpoints " + ids(retained) + " can be restored");
    }
    return null;
  }

  /** The gateway's fence: a report of another attempt than the current one is dropped. */
  private boolean fenced(ExecutionAttemptId task) {
    return task.attempt() != attempt;
  }

  private void onAcknowledge(
      ExecutionAttemptId task, long checkpointId, Map<String, OperatorSubtaskState> states) {
    if (fenced(task) && !mutations.contains(Mutation.OLD_ATTEMPT_ACK)) {
      trace("dropped ack " + checkpointId + " of old attempt " + task);
      return;
    }
    trace("ack " + checkpointId + " from " + task);
    coordinator.acknowledge(new TaskKey(task.vertex(), task.subtask()), checkpointId, states);
  }

  private void onDecline(ExecutionAttemptId task, long checkpointId, String why) {
    if (fenced(task)) {
      return;
    }
    trace("decline " + checkpointId + " from " + task + ": " + why);
    coordinator.decline(
        new TaskKey(task.vertex(), task.subtask()), checkpointId, new IOException(why));
  }

  private void onEndOfInput(ExecutionAttemptId task) {
    if (fenced(task)) {
      return;
    }
    trace("end of input " + task);
    coordinator.reachedEndOfInput(new TaskKey(task.vertex(), task.subtask()));
  }

  private void onTerminated(ExecutionAttemptId task, TaskState state, Throwable cause) {
    if (fenced(task) || !terminated.add(task)) {
      return;
    }
    trace(task + " " + state + (cause == null ? "" : ": " + cause.getMessage()));
    if (state == TaskState.FINISHED) {
      coordinator.taskFinished(new TaskKey(task.vertex(), task.subtask()));
    }
    if (state == TaskState.FAILED && !failing) {
      // failAttempt ends the attempt itself if this was its last task; ending it here once more
      // would restart a job that must not restart, one that failed after its stop completed.
      failAttempt(cause);
      return;
    }
    if (terminated.size() == current.size()) {
      onAttemptEnded();
    }
  }

  /** As the scheduler: stop the coordinator, cancel every task, restart once all ended. */
  private void failAttempt(Throwable cause) {
    if (failing || jobFinished) {
      return;
    }
    failing = true;
    trace("attempt " + attempt + " fails: " + cause.getMessage());
    // As Scheduler.onAttemptEnded: the stop the store recorded, whatever the user heard of it.
    CompletedStop recorded = coordinator.completedStop();
    failedAfterStop = recorded == null ? null : savepointOf(recorded);
    stopFailed();
    long corrupt = CorruptCheckpointException.findIn(cause);
    if (corrupt >= 0) {
      trace("checkpoint " + corrupt + " marked unrestorable");
      unrestorable.add(corrupt);
    }
    coordinator.stop();
    for (Task t : current.values()) {
      rpc("cancel " + t.id, false, t::cancel);
    }
    if (terminated.size() == current.size()) {
      onAttemptEnded();
    }
  }

  private void onAttemptEnded() {
    if (resumeFrom != null) {
      SimSavepoints.Completed savepoint = resumeFrom;
      resumeFrom = null;
      // As JobMaster.finishJob for a cancelled job: its end is recorded, then the retained
      // checkpoints go (no RETAIN_ON_CANCELLATION), then the orphans; never a savepoint.
      trace("job " + job + " cancelled");
      endRecorded = !mutations.contains(Mutation.END_RECORDED_AFTER_CLEANUP);
      coordinator.discardRetained();
      coordinator.discardOrphanedState(true);
      resumeLater(savepoint);
      return;
    }
    if (!failing && stoppedWith != null) {
      jobStopped();
      return;
    }
    if (!failing) {
      jobFinished = true;
      trace("job finished");
      // Transactions held by savepoints nobody resumed from, and the empty ones of checkpoints
      // after the final one: the external system times them out.
      for (Map.Entry<String, Txn> t : new ArrayList<>(txns.entrySet())) {
        if (t.getValue() == Txn.PREPARED
            && (savepoints.holds(t.getKey()) || txnRecords.get(t.getKey()).isEmpty())) {
          abortTxn(t.getKey());
        }
      }
      coordinator.stop();
      coordinator.discardRetained();
      coordinator.discardOrphanedState(true);
      return;
    }
    if (failedAfterStop != null) {
      jobFailedAfterStop();
      return;
    }
    int gen = generation;
    int ended = attempt;
    at(
        2 + rng.nextInt(10),
        () -> {
          if (gen == generation && attempt == ended) {
            restart();
          }
        });
  }

  private void restart() {
    restarts++;
    restartsSinceCompletion++;
    if (quietSince >= 0) {
      // Once faults stop, a restart (a checkpoint that timed out) is fine if checkpoints complete
      // after it; restarts one after the other without any are a loop.
      restartsWhileQuiet++;
    }
    if (restartsSinceCompletion > 30) {
      throw new Violation(
          "no-restore-loop", restartsSinceCompletion + " restarts without a checkpoint completing");
    }
    if (restartsWhileQuiet > 5) {
      throw new Violation(
          "no-restore-loop",
          restartsWhileQuiet
              + " restarts in a row after the faults stopped, no checkpoint between");
    }
    deploy();
  }

  /** Faults of whole tasks and of the job master, now and then. */
  private void chaosTick() {
    if (jobFinished) {
      return;
    }
    if (faultsActive() && !checking && clockRng.nextInt(100) < 3) {
      // An NTP correction or a resumed virtual machine: 30-90 s either way, longer than the
      // liveness bound, so a wait measured on the wall clock would hold checkpoints back past it.
      long step = (clockRng.nextBoolean() ? 1 : -1) * (30_000 + clockRng.nextInt(60_000));
      wallClockStep += step;
      clockSteps++; // outside the fault budget, so that steps change no other choice of a seed
      faultsByKind.merge("clock-step", 1, Integer::sum);
      trace("FAULT clock-step " + step + " ms");
    }
    if (faultsActive()) {
      List<Task> running = new ArrayList<>();
      for (Task t : current.values()) {
        if (t.alive && t.started && !t.finished) {
          running.add(t);
        }
      }
      if (!running.isEmpty() && fault("task-fails", 0.12)) {
        Task t = running.get(rng.nextInt(running.size()));
        t.fail(new IllegalStateException("injected failure of " + t.id));
      } else if (fault("job-master-failover", 0.02)) {
        for (Task t : current.values()) {
          t.alive = false; // the task managers cancel what the lost leader ran
        }
        startJobMaster(true);
      } else if (readFaults && coordinator.retained().size() > 1 && fault("file-damaged", 0.01)) {
        damageNewestCheckpoint();
      }
    }
    if (faultsActive()) {
      at(5 + rng.nextInt(20), this::chaosTick);
    }
  }

  /**
   * Now and then, while the job runs, the user asks for a savepoint into the savepoints' directory
   * ({@link SimSavepoints}); not a fault. The real coordinator triggers it (or refuses: the job
   * restarts), its tasks write into its own directory, and it completes, fails or expires under the
   * same faults as the checkpoints.
   */
  private void savepointTick() {
    if (jobFinished) {
      return;
    }
    if (stopping >= 0 || stoppedWith != null) {
      at(20 + savepointRng.nextInt(60), this::savepointTick);
      return; // the job is stopping: the user waits
    }
    if (STOPS && !failing && resumes < 2 && stopRng.nextInt(100) < 4) {
      stopWithSavepoint();
    }
    List<SimSavepoints.Completed> done = savepoints.completed();
    if (!failing
        && stopping < 0
        && resumes < 2
        && !done.isEmpty()
        && savepointRng.nextInt(100) < 6) {
      cancelToResume(done.get(done.size() - 1));
      return; // the resumed job's ticks start with it
    }
    if (savepointRng.nextInt(100) < 25) {
      triggerSavepoint();
    }
    at(20 + savepointRng.nextInt(60), this::savepointTick);
  }

  /**
   * The user stops the job with a savepoint, as {@code JobMaster.stopWithSavepoint} asks the
   * coordinator: without drain ({@code SAVEPOINT_SUSPEND}) the sources emit its barrier and then
   * nothing; with drain ({@code SAVEPOINT_TERMINATE}, in two stops of five) they first end their
   * input (end of data, so the tasks after them end theirs) and then emit its barrier, which
   * follows everything they read. If it completes every task is told and ends (the sink commits),
   * the job ends with it, and the user resumes from it ({@link #jobStopped}); if it fails, or the
   * attempt fails before every task ended, the job reads on (or restarts) and no transaction may be
   * committed twice. A drained stop that fails after it was triggered cannot read on, its sources
   * having ended their input: the job fails over ({@link #drainFailed}); one refused before it was
   * triggered changes nothing.
   */
  private void stopWithSavepoint() {
    boolean drain = drainRng.nextInt(5) < 2;
    String what = drain ? "stop-with-savepoint with drain " : "stop-with-savepoint ";
    java.util.concurrent.CompletableFuture<String> result =
        coordinator.triggerSavepoint(
            savepoints.directory(),
            drain
                ? CheckpointOptions.Type.SAVEPOINT_TERMINATE
                : CheckpointOptions.Type.SAVEPOINT_SUSPEND);
    if (result.isDone()) {
      // Refused before any barrier left: no source ended its input, so the job reads on, as
      // SavepointTrigger.stop leaves it.
      trace(what + "refused: " + result.handle((p, e) -> e.getMessage()).join());
      return;
    }
    long id = coordinator.lastCheckpointId();
    savepoints.triggered(id);
    stopping = id;
    stoppingDrained = drain;
    stops++;
    drainedStops += drain ? 1 : 0;
    int gen = generation;
    int att = attempt;
    trace(what + id + " triggered");
    result.whenComplete(
        (pointer, failure) -> {
          try {
            if (failure != null) {
              savepoints.failed();
              trace(what + id + " failed: " + failure.getMessage());
              if (stopping == id) {
                stopping = -1;
              }
              if (drain && gen == generation) {
                drainedStopsFailed++;
                drainFailed(failure.getMessage());
              }
              return;
            }
            io.weir.runtime.storage.RetainedCheckpoint loaded = savepointCompleted(id, pointer);
            if (stopping == id && gen == generation && att == attempt && !failing) {
              stopping = -1;
              stoppedWith = savepoints.completed().get(savepoints.completed().size() - 1);
              if (drain) {
                checkDrained(loaded);
              }
            }
          } catch (Violation v) {
            caught = v;
          }
        });
  }

  /**
   * A stop-with-savepoint with drain failed ({@code why}): unless the job has ended, as {@code
   * SavepointTrigger.stop}, the job master fails its current attempt a moment later (on its timer),
   * since sources that ended their input cannot read on where they were; the restart resumes from
   * the newest checkpoint, whose restore must not commit what the sink committed before. A job that
   * ended (finished, stopped, failed after its stop, or cancelled to be resumed) is left alone.
   */
  private void drainFailed(String why) {
    int gen = generation;
    int ofJob = job;
    at(
        1,
        () -> {
          if (gen == generation
              && ofJob == job
              && !jobFinished
              && pendingResume == null
              && resumeFrom == null) {
            failAttempt(
                new IllegalStateException(
                    "stop-with-savepoint with drain failed after the sources ended their input: "
                        + why));
          }
        });
  }

  /**
   * A drained stop's savepoint holds no in-flight data and its sources' offsets are exactly where
   * each source ended its input: the counts of a consistent cut at those offsets (checked by {@link
   * #savepointCompleted}) are then the totals of every record the sources emitted.
   */
  private void checkDrained(io.weir.runtime.storage.RetainedCheckpoint loaded) {
    CompletedCheckpoint savepoint = loaded.checkpoint();
    if (holdsInFlightData(savepoint)) {
      throw new Violation(
          "drained", "drained savepoint " + savepoint.checkpointId() + " holds in-flight data");
    }
    long[] offsets;
    checking = true;
    try {
      offsets = sourceOffsets(savepoint, loaded.storage(), "savepoint " + savepoint.checkpointId());
    } catch (IOException e) {
      throw new Violation(
          "consistent-cut", "savepoint " + savepoint.checkpointId() + " cannot be read: " + e);
    } finally {
      checking = false;
    }
    for (Task t : current.values()) {
      if (t instanceof SourceTask s && (!s.endedInput || s.offset != offsets[s.index])) {
        throw new Violation(
            "drained",
            "drained savepoint "
                + savepoint.checkpointId()
                + " holds source "
                + s.index
                + " at offset "
                + offsets[s.index]
                + ", but the source "
                + (s.endedInput ? "ended its input" : "reads on")
                + " after emitting "
                + s.offset
                + " records");
      }
    }
  }

  /**
   * The attempt failed or the job master changed while a stop-with-savepoint was in progress or
   * after it completed, before every task ended: the stop failed ("completed, but then the job
   * failed"), and the job goes on from its newest checkpoint.
   */
  private void stopFailed() {
    if (stopping >= 0 || stoppedWith != null) {
      trace("the stop-with-savepoint " + (stopping >= 0 ? stopping : stoppedWith.id()) + " fails");
    }
    stopping = -1;
    stoppedWith = null;
  }

  /**
   * Every task ended after the stop-with-savepoint completed: the job is finished (as {@code
   * JobMaster.finishJob}: its checkpoints go, then the orphans; the savepoint is the user's). Its
   * sink committed what the savepoint holds pending, each transaction once; the user resumes from
   * the savepoint.
   */
  private void jobStopped() {
    SimSavepoints.Completed savepoint = stoppedWith;
    stoppedWith = null;
    stopsCompleted++;
    drainedStopsCompleted += stoppingDrained ? 1 : 0;
    trace("job " + job + " stopped with savepoint " + savepoint.id());
    for (String txn : savepoints.heldBy(savepoint)) {
      // Empty ones (of checkpoints after the final one) may stay pending: the sink had finished.
      if (txns.get(txn) != Txn.COMMITTED && !txnRecords.get(txn).isEmpty()) {
        throw new Violation(
            "two-phase-commit",
            "job "
                + job
                + " stopped with savepoint "
                + savepoint.id()
                + ", but its transaction "
                + txn
                + " is "
                + txns.get(txn)
                + ", not committed");
      }
    }
    coordinator.stop();
    coordinator.discardRetained();
    coordinator.discardOrphanedState(true);
    resumeLater(savepoint);
  }

  /**
   * The attempt failed after its stop-with-savepoint completed, whose tasks were told to commit:
   * the job does not restart (as {@code Scheduler.onAttemptEnded}, and Flink since FLINK-26783),
   * since an older checkpoint's restore would commit the savepoint's records again. It fails, and
   * the user resumes from the savepoint, whose restore commits what the sink had not.
   */
  private void jobFailedAfterStop() {
    SimSavepoints.Completed savepoint = failedAfterStop;
    failedAfterStop = null;
    trace(
        "job "
            + job
            + " fails after its stop-with-savepoint "
            + savepoint.id()
            + " completed: it does not restart, the user resumes from the savepoint");
    coordinator.stop();
    resumeLater(savepoint);
  }

  /** The user resumes from {@code savepoint} a little later, unless a job master took over. */
  /**
   * The user submits the job again from {@code savepoint}, to the job master that leads then (one
   * that takes over meanwhile has it asked again: {@link #startJobMaster}).
   */
  private void resumeLater(SimSavepoints.Completed savepoint) {
    pendingResume = savepoint;
    int gen = generation;
    at(
        5 + rng.nextInt(20),
        () -> {
          if (gen == generation) {
            pendingResume = null;
            resumeJob(savepoint);
          }
        });
  }

  private SimSavepoints.Completed pendingResume;

  private void triggerSavepoint() {
    java.util.concurrent.CompletableFuture<String> result =
        coordinator.triggerSavepoint(savepoints.directory(), CheckpointOptions.Type.SAVEPOINT);
    if (result.isDone()) {
      savepoints.refused();
      trace("savepoint refused: " + result.handle((p, e) -> e.getMessage()).join());
      return;
    }
    long id = coordinator.lastCheckpointId();
    savepoints.triggered(id);
    trace("savepoint " + id + " triggered");
    result.whenComplete(
        (pointer, failure) -> {
          try {
            if (failure != null) {
              savepoints.failed();
              trace("savepoint " + id + " failed: " + failure.getMessage());
            } else {
              savepointCompleted(id, pointer);
            }
          } catch (Violation v) {
            caught = v; // the coordinator completes the future: thrown again by the loop
          }
        });
  }

  /**
   * Savepoint {@code id} completed at {@code pointer}: read back from there, as a user resuming
   * from it would, it is a consistent cut, and it is not among the checkpoints the job retains.
   */
  private io.weir.runtime.storage.RetainedCheckpoint savepointCompleted(long id, String pointer) {
    io.weir.runtime.storage.RetainedCheckpoint loaded;
    checking = true;
    try {
      loaded = CompletedCheckpointLocation.load(pointer, null);
    } catch (IOException e) {
      throw new Violation(
          "consistent-cut", "savepoint " + id + " at " + pointer + " cannot be read: " + e);
    } finally {
      checking = false;
    }
    CompletedCheckpoint savepoint = loaded.checkpoint();
    if (!savepoint.savepoint() || savepoint.checkpointId() != id) {
      throw new Violation(
          "consistent-cut",
          pointer + " holds " + savepoint.checkpointId() + ", not savepoint " + id);
    }
    checkCut(savepoint, loaded.storage(), "savepoint " + id);
    List<String> pending = new ArrayList<>();
    checking = true;
    try {
      sinkOutputs(savepoint, loaded.storage(), pending);
    } catch (IOException e) {
      throw new Violation("consistent-cut", "savepoint " + id + " cannot be read: " + e);
    } finally {
      checking = false;
    }
    savepoints.completed(savepoint, pointer, pending);
    trace("savepoint " + id + " completed at " + pointer + ", holding " + pending);
    checkNoSavepointRetained();
    return loaded;
  }

  /**
   * The user cancels the job to resume it from {@code savepoint} ({@code cancel}, then a submission
   * with {@code execution.state-recovery.path}): the attempt's tasks are cancelled, and once all
   * ended the job's clean-up runs and the resumed job starts ({@link #onAttemptEnded}).
   */
  private void cancelToResume(SimSavepoints.Completed savepoint) {
    trace("the user cancels job " + job + " to resume from savepoint " + savepoint.id());
    resumeFrom = savepoint;
    failing = true;
    coordinator.stop();
    for (Task t : current.values()) {
      rpc("cancel " + t.id, false, t::cancel);
    }
    if (terminated.size() == current.size()) {
      onAttemptEnded();
    }
  }

  /**
   * The resumed job, as {@code JobMaster} makes it: a job of its own (its own checkpoint
   * directory), a new coordinator whose ids count on from the savepoint's, no retained checkpoint;
   * its attempts restore the savepoint until a checkpoint of its own completed. The user picks the
   * counters' parallelism anew (1 to {@link #MAX_COUNTERS}), unless the savepoint holds in-flight
   * data, which Weir's {@code StateAssignment} cannot split over another parallelism (none does
   * today: savepoints are aligned).
   */
  private void resumeJob(SimSavepoints.Completed savepoint) {
    List<Out> committedBefore = new ArrayList<>(inherited);
    for (Map.Entry<String, Txn> t : txns.entrySet()) {
      if (t.getValue() == Txn.COMMITTED && txnJob.get(t.getKey()) == job) {
        committedBefore.addAll(txnRecords.get(t.getKey()));
      }
    }
    checkCommittedOnce(committedBefore, "job " + job + ", which the user resumes from");
    job++;
    resumes++;
    jobId = String.format("%028x%04x", seed, job);
    storage = new FileSystemCheckpointStorage(URI.create(scheme + ":///ckpt"), jobId, 24);
    jobDir = "/ckpt/" + jobId;
    checking = true;
    try {
      initialRestore = CompletedCheckpointLocation.load(savepoint.pointer(), null);
      List<String> pending = new ArrayList<>();
      inherited = sinkOutputs(initialRestore.checkpoint(), initialRestore.storage(), pending);
      inheritedTxns = pending;
      OperatorSubtaskState sink = initialRestore.checkpoint().operator(SINK).subtasks().get(0);
      if (sink.finished() && sink.hasNoState()) {
        // The sink had finished before the savepoint (its final checkpoint completed first): it
        // committed everything it ever received, which the resumed job takes over.
        inherited = committedBefore;
        inheritedTxns = List.of();
      }
    } catch (IOException e) {
      throw new Violation(
          "no-retained-file-deleted",
          "savepoint " + savepoint.id() + " cannot be loaded to resume from: " + e);
    } finally {
      checking = false;
    }
    int before = counters;
    if (!holdsInFlightData(initialRestore.checkpoint())) {
      counters = 1 + parallelismRng.nextInt(MAX_COUNTERS);
    }
    if (counters != before) {
      rescaledResumes++;
    }
    generation++;
    endRecorded = false;
    pendingResume = null;
    savepoints.jobMasterChanged();
    int gen = generation;
    coordinator = newCoordinator(gen, savepoint.id(), List.of());
    unrestorable.clear();
    trace(
        "job "
            + job
            + " resumes from savepoint "
            + savepoint.id()
            + " with "
            + counters
            + " counters (the job before had "
            + before
            + ")");
    deploy();
    at(20 + savepointRng.nextInt(60), this::savepointTick);
  }

  private List<String> inheritedTxns = List.of();

  private static boolean holdsInFlightData(CompletedCheckpoint c) {
    for (OperatorState op : c.operators()) {
      if (op.subtasks().stream().anyMatch(OperatorSubtaskState::hasChannelState)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Every record of a job's timeline, {@code lineage} (what it inherited and what it committed), is
   * committed once, checked when the job ends for a resume: the end's check sees only the last
   * job's timeline.
   */
  private void checkCommittedOnce(List<Out> lineage, String whose) {
    if (damaged) {
      return; // a fallback past a damaged checkpoint commits some records twice (see checkEnd)
    }
    Set<String> committed = new HashSet<>();
    for (Out o : lineage) {
      if (!committed.add(o.src() + ":" + o.idx())) {
        throw new Violation(
            "exactly-once", "record " + o.src() + ":" + o.idx() + " committed twice by " + whose);
      }
    }
  }

  /** When the user stops the job with a savepoint: apart from the other draws, as above. */
  private final Random stopRng;

  /**
   * When the wall clock steps, and by how much: apart from the other draws, so that steps change no
   * other choice of a seed. The wall clock is the virtual time plus {@link #wallClockStep}; the
   * coordinator's clock that only moves forward is the virtual time itself.
   */
  private final Random clockRng;

  private long wallClockStep;
  private int clockSteps;

  private long stopping = -1; // the stop-with-savepoint in progress, or -1
  private SimSavepoints.Completed stoppedWith; // it completed: the job ends with it
  private SimSavepoints.Completed failedAfterStop; // the attempt failed after it completed
  private int stops; // stop-with-savepoints asked for (not refused)
  private int stopsCompleted; // ... that completed and ended the job

  /**
   * Whether a stop drains: apart from the stops' own draws, so that the seeds stop when they did
   * before stops could drain.
   */
  private final Random drainRng;

  private boolean stoppingDrained; // the stop in progress (or completed) drains
  private int drainedStops; // stop-with-savepoints with drain asked for (not refused)
  private int drainedStopsCompleted; // ... that completed and ended the job
  private int drainedStopsFailed; // ... whose savepoint failed: the job failed over

  /**
   * A savepoint is never one of the job's retained checkpoints: it subsumes none, is subsumed by
   * none, and a restart never restores it (Flink: only the checkpoints recover a job).
   */
  private void checkNoSavepointRetained() {
    for (CompletedCheckpoint c : coordinator.retained()) {
      if (c.savepoint() || savepoints.isSavepoint(c.checkpointId())) {
        throw new Violation(
            "savepoint-not-retained",
            "savepoint "
                + c.checkpointId()
                + " is among the retained checkpoints "
                + ids(coordinator.retained()));
      }
    }
  }

  /**
   * Flips a byte of a file that only the newest retained checkpoint holds (not a shared one, which
   * older checkpoints may hold as well), as a disk or a copy gone wrong does: that checkpoint can
   * no longer be restored, and the job falls back to an older one. Its sinks may have committed the
   * newer checkpoint's transactions already; those records come again (see {@link #checkEnd}).
   */
  private void damageNewestCheckpoint() {
    CompletedCheckpoint newest = coordinator.retained().get(0);
    List<String> own = new ArrayList<>();
    for (OperatorState op : newest.operators()) {
      for (OperatorSubtaskState st : op.subtasks()) {
        for (StreamStateHandle h : st.handles()) {
          if (h instanceof StreamStateHandle.File f
              && !f.relativePath().startsWith("shared/")
              && f.size() > 0) {
            own.add(jobDir + "/" + f.relativePath());
          }
        }
      }
    }
    if (own.isEmpty()) {
      return;
    }
    own.sort(null);
    String path = own.get(rng.nextInt(own.size()));
    byte[] bytes = fs.files().get(path).clone();
    bytes[rng.nextInt(bytes.length)] ^= 1;
    fs.files().put(path, bytes);
    damaged = true;
    trace("damaged " + path + " of checkpoint " + newest.checkpointId());
  }

  // ------------------------------------------------------------------ the coordinator's storage

  /**
   * The storage as the coordinator sees it: the real {@link FileSystemCheckpointStorage}; the seam
   * of {@link Mutation#EARLY_SHARED_DELETE} and {@link Mutation#SUBSUMED_SAVEPOINT_DELETE}.
   */
  private final class StorageView implements CheckpointStorageCoordinatorView {
    @Override
    public String commitCheckpoint(CompletedCheckpoint checkpoint) throws IOException {
      return storage.commitCheckpoint(checkpoint);
    }

    @Override
    public String externalPointer(long checkpointId) {
      return storage.externalPointer(checkpointId);
    }

    @Override
    public void writeHistory(String pointer, io.weir.runtime.checkpoint.CheckpointHistory history)
        throws IOException {
      storage.writeHistory(pointer, history);
    }

    @Override
    public io.weir.runtime.checkpoint.CheckpointHistory readHistory(String pointer)
        throws IOException {
      return storage.readHistory(pointer);
    }

    @Override
    public void discardCheckpoint(long checkpointId) throws IOException {
      if (mutations.contains(Mutation.EARLY_SHARED_DELETE)) {
        String shared = jobDir + "/shared";
        if (fs.exists(shared)) {
          for (String name : fs.list(shared)) {
            if (name.startsWith(checkpointId + "-")) {
              fs.delete(shared + "/" + name, false);
            }
          }
        }
      }
      if (mutations.contains(Mutation.SUBSUMED_SAVEPOINT_DELETE)) {
        for (SimSavepoints.Completed savepoint : savepoints.completed()) {
          if (savepoint.id() < checkpointId) {
            storage.discardSavepoint(savepoint.pointer());
          }
        }
      }
      storage.discardCheckpoint(checkpointId);
    }

    @Override
    public void discardSharedState(StreamStateHandle handle) throws IOException {
      storage.discardSharedState(handle);
    }

    @Override
    public void discardUnreferencedSharedState(Set<String> referenced, long upToCheckpointId)
        throws IOException {
      storage.discardUnreferencedSharedState(referenced, upToCheckpointId);
    }

    @Override
    public void discardOrphanedState(boolean nothingInProgress) throws IOException {
      storage.discardOrphanedState(nothingInProgress);
    }

    @Override
    public String initializeSavepointLocation(String jobId, String directory) {
      return storage.initializeSavepointLocation(jobId, directory);
    }

    @Override
    public String commitSavepoint(CompletedCheckpoint savepoint, String location)
        throws IOException {
      return storage.commitSavepoint(savepoint, location);
    }

    @Override
    public void discardSavepoint(String location) throws IOException {
      storage.discardSavepoint(location);
    }

    @Override
    public List<CompletedCheckpoint> loadRetained(List<String> problems) throws IOException {
      return storage.loadRetained(problems);
    }
  }

  // ------------------------------------------------------------------ model tasks

  /**
   * A FIFO channel of one attempt; barriers travel in band. In unaligned runs its data goes into
   * the consumer's real {@link InputChannel}, as from a producer in another process: each record
   * framed as the data plane frames it, a buffer each (one in four cut across two buffers), the
   * events in order, and an unaligned barrier ahead of the buffers queued, which the channel keeps
   * for the consumer to record ({@link InputChannel#receivePriorityBarrier}).
   */
  private final class Channel {
    final Task consumer;
    final int index;
    final ArrayDeque<Object> queue = new ArrayDeque<>();
    final InputChannel input; // unaligned runs only

    Channel(Task consumer, int index, InputChannel input) {
      this.consumer = consumer;
      this.index = index;
      this.input = input;
    }

    void send(Object event) {
      if (input == null) {
        queue.addLast(event);
      } else if (event instanceof Rec || event instanceof Out) {
        byte[] frame = frame(event);
        if (rng.nextInt(4) == 0) {
          int cut = 1 + rng.nextInt(frame.length - 1);
          input.enqueueBuffer(Buffer.wrap(java.util.Arrays.copyOfRange(frame, 0, cut)));
          input.enqueueBuffer(Buffer.wrap(java.util.Arrays.copyOfRange(frame, cut, frame.length)));
        } else {
          input.enqueueBuffer(Buffer.wrap(frame));
        }
      } else if (event instanceof CheckpointBarrier b && b.unaligned()) {
        input.receivePriorityBarrier(b);
      } else {
        input.addEvent((ChannelEvent) event);
      }
      consumer.wake();
    }
  }

  private abstract class Task implements BarrierHandler.Actions {
    final ExecutionAttemptId id;
    final TaskKey key;
    final int parallelism; // its vertex's, in its attempt
    final List<Channel> inputs = new ArrayList<>();
    final List<Channel> outputs = new ArrayList<>();
    final Set<Integer> blocked = new HashSet<>();
    final Set<Integer> endOfData = new HashSet<>();
    final Set<Integer> closed = new HashSet<>();
    final Set<Long> notified = new HashSet<>();
    final Set<Long> savepointIds = new HashSet<>();
    final CompletedCheckpoint from;
    final TaskRestore restore;
    final boolean finishedOnRestore;
    BarrierHandler handler;

    // Unaligned runs, tasks with inputs: the runtime's input side of an unaligned checkpoint.
    InputGate gate;
    InputChannelStateRecorder recorder;
    WatermarkValve valve;
    InputChannel reading; // whose deserializer holds the buffer being read
    int readingChannel; // the channel of the record being processed
    final DataInputDeserializer view = new DataInputDeserializer();

    /** An unaligned snapshot waiting for its in-flight data (the task's holdForChannelState). */
    Upload held;

    long heldId = -1;
    boolean alive = true;
    boolean started;
    boolean endedInput;
    boolean finished;
    boolean pollScheduled;

    Task(int vertex, int subtask, int parallelism, String operatorId, CompletedCheckpoint from) {
      this.id = new ExecutionAttemptId(String.format("%032x", seed), vertex, subtask, attempt);
      this.key = new TaskKey(vertex, subtask);
      this.parallelism = parallelism;
      this.from = from;
      OperatorState op = from == null ? null : from.operator(operatorId);
      if (op == null) {
        restore = null;
        finishedOnRestore = false;
      } else {
        List<InputChannelStateHandle> inFlight;
        if (op.subtasks().size() == parallelism) {
          OperatorSubtaskState own = op.subtasks().get(subtask);
          finishedOnRestore = own.finished() && own.hasNoState();
          // As StateAssignment at the same parallelism: subtask i replays what subtask i recorded.
          inFlight = own.inputChannelState();
        } else {
          // At another parallelism (a resumed job's, from state without in-flight data, which
          // StateAssignment refuses to split: see resumeJob), StateAssignment deals the key groups
          // and lists out anew; the operator is finished only if every old subtask was.
          finishedOnRestore =
              op.subtasks().stream().allMatch(old -> old.finished() && old.hasNoState());
          inFlight = List.of();
        }
        restore =
            new TaskRestore(
                from.checkpointId(),
                restoreReader,
                claimed,
                Map.of(
                    operatorId,
                    StateAssignment.assignOperator(op, parallelism, MAX_PARALLELISM, subtask)),
                inFlight,
                List.of(),
                TaskRestore.AssignedSplits.NONE);
      }
    }

    Channel newInput() {
      InputChannel in = null;
      if (unaligned) {
        if (gate == null) {
          gate = new InputGate(new Waker(), 2);
        }
        in = gate.addChannel(0, "channel " + inputs.size() + " of " + id);
      }
      Channel c = new Channel(this, inputs.size(), in);
      inputs.add(c);
      return c;
    }

    void setUpInputs() {
      if (inputs.isEmpty()) {
        return;
      }
      if (gate == null) {
        handler = new BarrierHandler(inputs.size(), true, this);
        return;
      }
      recorder = new InputChannelStateRecorder(gate.getChannels());
      valve =
          new WatermarkValve(
              inputs.size(),
              new WatermarkValve.Output() {
                @Override
                public void emitWatermark(long watermark) {}

                @Override
                public void emitWatermarkStatus(boolean idle) {}
              });
      handler = new BarrierHandler(inputs.size(), true, BarrierHandler.Alignment.UNALIGNED, this);
    }

    /**
     * As {@code InputStreamTask}: event time goes back to where it stood at the cut, then each
     * channel's recorded buffers and events are read before anything it receives.
     */
    void replay(InFlightData inFlight) {
      Map<Integer, List<ChannelStateEntry>> recorded = inFlight.inputs();
      if (recorded.isEmpty()) {
        return;
      }
      inFlightRestores++;
      boolean plantedLoss = mutations.contains(Mutation.WATERMARKS_NOT_RESTORED);
      WatermarkValve.Position[] cut = new WatermarkValve.Position[inputs.size()];
      int cuts = 0;
      for (Channel c : inputs) {
        List<ChannelStateEntry> entries = recorded.get(c.index);
        if (entries == null) {
          continue;
        }
        if (!entries.isEmpty() && entries.get(0) instanceof ChannelStateEntry.Cut k) {
          cut[c.index] = k.position();
          cuts++;
          entries = entries.subList(1, entries.size());
        }
        if (mutations.contains(Mutation.DROPPED_CHANNEL_STATE) && c.index == inputs.size() - 1) {
          entries = List.of();
        }
        if (plantedLoss) {
          entries = entries.stream().filter(e -> e instanceof ChannelStateEntry.Bytes).toList();
        }
        trace(id + " replays " + entries.size() + " entries of channel " + c.index);
        c.input.prependForReplay(entries);
      }
      if (cuts == cut.length && !plantedLoss) {
        valve.restore(cut);
      }
    }

    /** Restores (reading its share of the checkpoint) and begins. */
    void start() {
      if (!alive) {
        return;
      }
      if (finishedOnRestore) {
        started = true;
        endInput();
        finish();
        return;
      }
      try {
        if (fault("restore-fails", 0.03)) {
          throw new IOException("injected: the task manager died while " + id + " restored");
        }
        if (restore != null) {
          TaskRestore.Read read = restore.read();
          restore(read.operators().values().iterator().next());
          replay(read.inFlight());
        }
      } catch (Violation v) {
        throw v; // an invariant broken while restoring (a commit after an abort), not a failure
      } catch (Exception e) {
        fail(e);
        return;
      }
      started = true;
      trace(id + " running");
      begin();
      List<Runnable> deferred = new ArrayList<>(deferredTriggers);
      deferredTriggers.clear();
      deferred.forEach(Runnable::run);
      wake();
    }

    /** Triggers that came before the task ran, as mails waiting in its mailbox. */
    final List<Runnable> deferredTriggers = new ArrayList<>();

    abstract void restore(io.weir.runtime.checkpoint.RestoredOperatorState state)
        throws IOException;

    void begin() {}

    void fail(Throwable cause) {
      if (!alive || finished) {
        return;
      }
      alive = false;
      rpc("failed " + id, false, () -> onTerminated(id, TaskState.FAILED, cause));
    }

    void cancel() {
      if (!alive || finished) {
        return;
      }
      alive = false;
      rpc("canceled " + id, false, () -> onTerminated(id, TaskState.CANCELED, null));
    }

    void finish() {
      finished = true;
      for (Channel c : outputs) {
        c.send(EndOfPartition.INSTANCE);
      }
      rpc("finished " + id, false, () -> onTerminated(id, TaskState.FINISHED, null));
    }

    void wake() {
      if (!pollScheduled && alive && started) {
        pollScheduled = true;
        at(rng.nextInt(3), this::poll);
      }
    }

    /** Reads one event from a channel the handler has not blocked. */
    void poll() {
      pollScheduled = false;
      if (!alive || !started || finished) {
        return;
      }
      if (gate != null) {
        pollGate();
        return;
      }
      List<Channel> readable = new ArrayList<>();
      for (Channel c : inputs) {
        if (!c.queue.isEmpty() && !blocked.contains(c.index) && !closed.contains(c.index)) {
          readable.add(c);
        }
      }
      if (readable.isEmpty()) {
        return;
      }
      Channel c = readable.get(rng.nextInt(readable.size()));
      Object event = c.queue.removeFirst();
      try {
        if (event instanceof CheckpointBarrier b) {
          handler.onBarrier(c.index, b);
        } else if (event instanceof CancelCheckpointMarker m) {
          handler.onCancel(c.index, m);
        } else if (event instanceof EndOfData) {
          endOfData.add(c.index);
          if (endOfData.size() == inputs.size()) {
            endInput();
          }
        } else if (event instanceof EndOfPartition) {
          closed.add(c.index);
          handler.onChannelClosed(c.index);
        } else {
          process(event);
        }
      } catch (Violation v) {
        throw v;
      } catch (Exception e) {
        throw new IllegalStateException(id + " could not handle " + event, e);
      }
      wake();
    }

    /**
     * As {@code InputStreamTask.processInput}, one step: an overtaking barrier first (the task's
     * mail between two records), else the next record of the buffer being read, else the next
     * buffer or event of the gate.
     */
    private void pollGate() {
      try {
        InputGate.Polled polled = gate.pollPriority();
        if (polled == null) {
          if (reading != null && reading.getDeserializer().nextRecord(view)) {
            readingChannel = reading.getChannelIndex();
            process(decode(this instanceof CountTask, view));
            wake();
            return;
          }
          reading = null;
          polled = gate.pollNext();
          if (polled == null) {
            return;
          }
        }
        int channel = polled.channel().getChannelIndex();
        if (polled.element() instanceof Buffer buffer) {
          recorder.onBuffer(channel, buffer);
          polled.channel().getDeserializer().setNextBuffer(buffer);
          reading = polled.channel();
        } else {
          handleGateEvent(polled.channel(), (ChannelEvent) polled.element());
        }
      } catch (Violation v) {
        throw v;
      } catch (Exception e) {
        throw new IllegalStateException(id + " could not read its input", e);
      }
      wake();
    }

    private void handleGateEvent(InputChannel in, ChannelEvent event) throws Exception {
      int channel = in.getChannelIndex();
      if (event instanceof ChannelEvent.Watermark w) {
        recorder.onEvent(channel, event);
        valve.inputWatermark(channel, w.timestamp());
      } else if (event instanceof CheckpointBarrier b) {
        recorder.barrierArriving(channel, b.checkpointId());
        try {
          handler.onBarrier(channel, b);
        } finally {
          recorder.barrierHandled(channel);
        }
      } else if (event instanceof CancelCheckpointMarker m) {
        handler.onCancel(channel, m);
      } else if (event instanceof EndOfData) {
        if (in.getDeserializer().hasPartialRecord()) {
          throw new IllegalStateException(in + " ended in the middle of a record");
        }
        valve.inputEnded(channel);
        endOfData.add(channel);
        if (endOfData.size() == inputs.size()) {
          endInput();
        }
      } else if (event instanceof EndOfPartition) {
        closed.add(channel);
        handler.onChannelClosed(channel);
      }
    }

    void process(Object record) {}

    void endInput() {
      if (endedInput) {
        return;
      }
      endedInput = true;
      for (Channel c : outputs) {
        c.send(EndOfData.INSTANCE);
      }
      if (reportsEndOfInput()) {
        rpc("end of input " + id, true, () -> onEndOfInput(id));
      }
    }

    /**
     * Whether the end of its input is reported to the coordinator, which then waits for a final
     * checkpoint: not by a source that ended it for a drained stop, whose savepoint is the last (as
     * {@code StreamTask} after the loop).
     */
    boolean reportsEndOfInput() {
      return true;
    }

    // --- BarrierHandler.Actions

    @Override
    public void block(int channel) {
      blocked.add(channel);
      if (gate != null) {
        gate.block(gate.getChannels().get(channel));
      }
    }

    @Override
    public void unblockAll() {
      blocked.clear();
      if (gate != null) {
        gate.unblockAll();
      }
      wake();
    }

    @Override
    public void startRecording(int channel) {
      recorder.start(channel);
    }

    @Override
    public void recordUnconsumed(int channel) {
      recorder.keepUnconsumed(channel, handler.currentCheckpointId());
    }

    @Override
    public void stopRecording(int channel) {
      recorder.stop(channel, handler.currentCheckpointId());
    }

    /** Every channel delivered its barrier: the held snapshot goes with its in-flight data. */
    @Override
    public void channelStateComplete(long checkpointId) {
      if (heldId != checkpointId) {
        return;
      }
      InFlightData inFlight = new InFlightData(recorder.take(), Map.of());
      Upload own = held;
      held = null;
      heldId = -1;
      scheduleUpload(checkpointId, () -> withInFlight(checkpointId, own.write(), inFlight));
    }

    @Override
    public void triggerCheckpoint(CheckpointBarrier barrier) {
      if (barrier.unaligned() && recorder != null) {
        // As InputStreamTask.holdForChannelState: where event time stands leads the recording.
        recorder.clear();
        WatermarkValve.Position[] cut = new WatermarkValve.Position[inputs.size()];
        for (int c = 0; c < cut.length; c++) {
          cut[c] = valve.position(c);
        }
        recorder.cut(cut);
      }
      snapshot(barrier);
      for (Channel c : outputs) {
        c.send(barrier);
      }
    }

    @Override
    public void abortCheckpoint(long checkpointId, String reason) {
      // As InputStreamTask: the checkpoint is dropped here and downstream, not declined; the
      // coordinator ends it as subsumed by the newer one, or as expired.
      dropHeld(checkpointId);
      for (Channel c : outputs) {
        c.send(new CancelCheckpointMarker(checkpointId));
      }
      trace(id + " drops checkpoint " + checkpointId + ": " + reason);
    }

    /**
     * The synchronous part: copies what the snapshot holds; the asynchronous part writes it later
     * (and may outlive the task, as a snapshot thread does) and acknowledges.
     */
    void snapshot(CheckpointBarrier barrier) {
      long checkpointId = barrier.checkpointId();
      if (barrier.savepoint()) {
        savepointIds.add(checkpointId);
      }
      Upload upload = capture(checkpointId, new Target(barrier.targetLocation()));
      if (barrier.unaligned() && recorder != null) {
        held = upload;
        heldId = checkpointId;
        return;
      }
      scheduleUpload(checkpointId, upload);
    }

    /** An unaligned snapshot of {@code checkpointId} or older held is given up. */
    void dropHeld(long checkpointId) {
      if (heldId >= 0 && heldId <= checkpointId) {
        held = null;
        heldId = -1;
      }
    }

    /** The asynchronous part, later (and maybe after its task died). */
    void scheduleUpload(long checkpointId, Upload upload) {
      long delay = 1 + rng.nextInt(8);
      if (fault("upload-stalls", 0.03)) {
        delay += 150 + rng.nextInt(250);
      }
      at(
          delay,
          () -> {
            if (!alive && rng.nextBoolean()) {
              // The snapshot thread outlives its task and reports late, after its task manager
              // reconnected (to a new job master, maybe).
              at(10 + rng.nextInt(80), () -> upload(checkpointId, upload));
              return;
            }
            upload(checkpointId, upload);
          });
    }

    /** Writes the snapshot and acknowledges it, or declines when a write failed. */
    private void upload(long checkpointId, Upload upload) {
      Map<String, OperatorSubtaskState> states;
      try {
        states = upload.write();
      } catch (IOException e) {
        rpc(
            "decline " + checkpointId + " by " + id,
            true,
            () -> onDecline(id, checkpointId, "upload failed: " + e.getMessage()));
        return;
      }
      rpc("ack " + checkpointId + " by " + id, true, () -> onAcknowledge(id, checkpointId, states));
    }

    /** The synchronous part of the snapshot of {@code checkpointId}, written to {@code target}. */
    abstract Upload capture(long checkpointId, Target target);

    void notifyComplete(long checkpointId, boolean isFinal) {
      if (!alive) {
        return;
      }
      if (!notified.add(checkpointId)) {
        if (isFinal) {
          // A final checkpoint or stop-with-savepoint is told again until every task ended (a lost
          // notification would leave a task waiting): the task ignores it, as CheckpointNotifier.
          return;
        }
        throw new Violation(
            "notified-once", id + " was told twice that checkpoint " + checkpointId + " completed");
      }
      completedCheckpoint(checkpointId);
      // A stop-with-savepoint is final for a task whose input goes on: it ends without ending its
      // input (TaskLifecycle: STOPPED_WITH_SAVEPOINT).
      if (isFinal && (endedInput || savepointIds.contains(checkpointId)) && started && !finished) {
        finish();
      }
    }

    void completedCheckpoint(long checkpointId) {}

    void notifyAborted(long checkpointId) {
      if (!alive || handler == null) {
        return;
      }
      dropHeld(checkpointId);
      try {
        handler.abort(checkpointId);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * Where a snapshot's state goes, as the barrier says: the job's checkpoint storage, or a
   * savepoint's own directory (the storage's task view, {@code location}). A savepoint's state is
   * never recorded as finished (a job resumed from it restores every operator), as the runtime's
   * {@code SubtaskCheckpointCoordinator} has it.
   */
  private final class Target {
    private final String savepointDirectory;

    Target(String savepointDirectory) {
      this.savepointDirectory = savepointDirectory;
    }

    boolean savepoint() {
      return savepointDirectory != null;
    }

    io.weir.runtime.storage.CheckpointStateWriter writer(long checkpointId) throws IOException {
      return storage.location(checkpointId, savepointDirectory);
    }
  }

  /** The asynchronous part of a snapshot. */
  @FunctionalInterface
  private interface Upload {
    Map<String, OperatorSubtaskState> write() throws IOException;
  }

  /** A source of {@code records} records with seeded keys; its offset is its state. */
  private final class SourceTask extends Task {
    final int index;
    final int countersOfAttempt; // where its records go: the counters' parallelism, as deployed
    long offset;
    long suspendedFor = -1; // the stop-with-savepoint whose barrier it emitted, or -1
    long drainingFor = -1; // the drained stop-with-savepoint it ended its input for, or -1
    boolean emitting; // an emit is scheduled

    SourceTask(int index, CompletedCheckpoint from) {
      super(0, index, SOURCES, SRC, from);
      this.index = index;
      this.countersOfAttempt = counters;
    }

    @Override
    void restore(io.weir.runtime.checkpoint.RestoredOperatorState state) throws IOException {
      var list = state.operatorLists().get("offset");
      if (list != null && !list.elements().isEmpty()) {
        offset =
            new DataInputStream(new java.io.ByteArrayInputStream(list.elements().get(0)))
                .readLong();
      }
    }

    @Override
    void begin() {
      // As a source reader restored with its split's watermark: event time goes on from there.
      if (unaligned && watermarkBefore[index][(int) offset] != Long.MIN_VALUE) {
        for (Channel c : outputs) {
          c.send(new ChannelEvent.Watermark(watermarkBefore[index][(int) offset]));
        }
      }
      emitting = true;
      emit();
    }

    void emit() {
      if (!alive || finished) {
        return;
      }
      if (suspendedFor >= 0) {
        emitting = false; // nothing, not even watermarks, until the savepoint completed or aborted
        return;
      }
      if (offset >= records || endedInput) {
        emitting = false;
        endInput();
        return;
      }
      int idx = (int) offset++;
      int k = keysOf[index][idx];
      digest(index, idx, k);
      int target =
          KeyGroupRangeAssignment.assignKeyToParallelOperator(
              k, MAX_PARALLELISM, countersOfAttempt);
      outputs.get(target).send(new Rec(index, idx, k, unaligned ? tsOf[index][idx] : 0));
      if (unaligned && watermarkAfter[index][idx] != Long.MIN_VALUE) {
        for (Channel c : outputs) {
          c.send(new ChannelEvent.Watermark(watermarkAfter[index][idx]));
        }
      }
      at(2 + rng.nextInt(7), this::emit);
    }

    void trigger(long checkpointId, CheckpointOptions options) {
      if (!alive || finished) {
        return;
      }
      if (!started) {
        // As CheckpointNotifier: the trigger waits in the mailbox until the task runs.
        deferredTriggers.add(() -> trigger(checkpointId, options));
        return;
      }
      CheckpointBarrier barrier = options.toBarrier(checkpointId, now, true);
      if (options.drain() && !endedInput && mutations.contains(Mutation.DRAIN_BARRIER_FIRST)) {
        // The savepoint is taken where the source is, and the source reads its input to the end
        // only after the barrier: what it reads then is in no savepoint.
        drainingFor = checkpointId;
        triggerCheckpoint(barrier);
        return;
      }
      if (options.drain() && !endedInput) {
        // As CheckpointNotifier and StreamTask: the input ends first (end of data, the final
        // watermark it implies downstream), then the savepoint's barrier follows it; the source
        // stays ended whatever becomes of the savepoint (TaskLifecycle: DRAINED_FOR_SAVEPOINT).
        drainingFor = checkpointId;
        trace(id + " ends its input at " + offset + " for savepoint " + checkpointId);
        endInput();
        triggerCheckpoint(barrier);
        return;
      }
      triggerCheckpoint(barrier);
      if (options.isSynchronous()) {
        suspendedFor = checkpointId;
        trace(id + " suspended for savepoint " + checkpointId);
      }
    }

    @Override
    boolean reportsEndOfInput() {
      return drainingFor < 0;
    }

    @Override
    void notifyAborted(long checkpointId) {
      if (!alive || suspendedFor != checkpointId) {
        return;
      }
      // The stop-with-savepoint was aborted: the source reads on (TaskLifecycle: RUNNING).
      suspendedFor = -1;
      trace(id + " reads on after savepoint " + checkpointId + " was aborted");
      if (!emitting && started && !finished) {
        emitting = true;
        at(1 + rng.nextInt(3), this::emit);
      }
    }

    @Override
    Upload capture(long checkpointId, Target target) {
      long at = offset;
      boolean ended = endedInput && !target.savepoint();
      return () -> {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        new DataOutputStream(b).writeLong(at);
        OperatorStateHandle h =
            writeLists(
                target.writer(checkpointId),
                checkpointId,
                Map.of("offset", List.of(b.toByteArray())),
                "source offset");
        return Map.of(SRC, new OperatorSubtaskState(null, h, ended));
      };
    }
  }

  /** Writes list states through the storage's task view. */
  private static OperatorStateHandle writeLists(
      io.weir.runtime.storage.CheckpointStateWriter writer,
      long checkpointId,
      Map<String, List<byte[]>> lists,
      String what)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    Map<String, OperatorStateHandle.StateMetaInfo> meta = new LinkedHashMap<>();
    for (Map.Entry<String, List<byte[]>> list : new TreeMap<>(lists).entrySet()) {
      long[] offsets = new long[list.getValue().size()];
      for (int i = 0; i < offsets.length; i++) {
        offsets[i] = out.size();
        byte[] element = list.getValue().get(i);
        out.writeInt(element.length);
        out.write(element);
      }
      meta.put(
          list.getKey(),
          new OperatorStateHandle.StateMetaInfo(DefaultOperatorStateStore.Mode.SPLIT, offsets));
    }
    out.flush();
    StreamStateHandle data = writer.writeState(checkpointId, bytes.toByteArray(), what);
    return new OperatorStateHandle(meta, data);
  }

  /**
   * Counts per key, as incremental keyed state: each snapshot seals the keys changed since the last
   * one into a new immutable segment (a shared file, like an SST), now and then compacts all
   * segments into one; a segment uploaded by a checkpoint the task heard completed is referred to,
   * not uploaded again.
   */
  private final class CountTask extends Task {
    final int index;
    final KeyGroupRange range;
    final Map<Integer, Integer> counts = new TreeMap<>();
    final Map<Integer, Integer> dirty = new TreeMap<>();

    /** Local segments, oldest first: name to contents. */
    final LinkedHashMap<String, Map<Integer, Integer>> segments = new LinkedHashMap<>();

    /** Segments that a completed checkpoint holds: name to handle. */
    final Map<String, StreamStateHandle> confirmed = new HashMap<>();

    /** Per checkpoint taken, the segments it uploaded (filled in by the upload). */
    final TreeMap<Long, Map<String, StreamStateHandle>> uploadedBy = new TreeMap<>();

    String backendId;
    int localSeq;

    CountTask(int index, CompletedCheckpoint from) {
      super(1, index, counters, COUNT, from);
      this.index = index;
      this.range =
          KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
              MAX_PARALLELISM, parallelism, index);
      this.backendId = "db-" + index + "-" + attempt + "-" + rng.nextInt(1_000_000);
    }

    @Override
    void restore(io.weir.runtime.checkpoint.RestoredOperatorState state) throws IOException {
      KeyGroupRange taken = range;
      int oldParallelism = from.operator(COUNT).subtasks().size();
      if (mutations.contains(Mutation.RESCALED_OLD_KEY_GROUPS) && oldParallelism != parallelism) {
        // Planted: the key groups its index had at the old parallelism, not its new range.
        taken =
            index < oldParallelism
                ? KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                    MAX_PARALLELISM, oldParallelism, index)
                : KeyGroupRange.of(0, -1);
      }
      for (var kg : state.keyed()) {
        // A savepoint's canonical key groups: those of this subtask's range go into the database,
        // a new one that uploads everything with its first checkpoint. At another parallelism
        // StateAssignment hands it every old subtask's handle that overlaps its range.
        Map<Integer, Integer> restored = new TreeMap<>();
        for (int i = 0; i < kg.offsets().length; i++) {
          if (taken.contains(kg.range().startKeyGroup() + i)) {
            DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(kg.data()));
            in.skipBytes((int) kg.offsets()[i]);
            restored.putAll(readSegment(in));
          }
        }
        counts.putAll(restored);
        segments.put("seg-" + (++localSeq), restored);
      }
      for (var r : state.incremental()) {
        IncrementalKeyedStateHandle h = r.handle();
        Map<String, StreamStateHandle> byName = new HashMap<>();
        h.sharedFiles().forEach(f -> byName.put(f.localName(), f.handle()));
        try {
          for (String name : readNames(storage.readState(h.metaData()))) {
            Map<Integer, Integer> seg = readSegment(storage.readState(byName.get(name)));
            segments.put(name, seg);
            counts.putAll(seg);
            if (r.claimed()) {
              confirmed.put(name, byName.get(name));
            }
            localSeq = Math.max(localSeq, Integer.parseInt(name.substring(4)));
          }
        } catch (DamagedStateException e) {
          // As RocksDBRestore: a missing or damaged file makes the checkpoint unrestorable.
          throw new CorruptCheckpointException(h.checkpointId(), e.getMessage(), e);
        }
        if (r.claimed()) {
          // The same database goes on: its files are referred to, not uploaded again. Unclaimed,
          // it is a new database (its id from the constructor) that uploads every segment again.
          backendId = h.backendId();
        }
      }
    }

    @Override
    void process(Object record) {
      Rec r = (Rec) record;
      int c = counts.merge(r.key(), 1, Integer::sum);
      dirty.put(r.key(), c);
      digest(100 + index, r.key(), c);
      // Late: behind the watermark of the channel it came on, as the uninterrupted run has it only
      // if a restore put that channel's event time back where it stood (the issue's bug).
      boolean late = valve != null && r.ts() < valve.position(readingChannel).watermark();
      outputs.get(0).send(new Out(r.key(), c, r.src(), r.idx(), late));
    }

    @Override
    Upload capture(long checkpointId, Target target) {
      if (target.savepoint()) {
        return captureCanonical(checkpointId, target);
      }
      if (!dirty.isEmpty()) {
        segments.put("seg-" + (++localSeq), new TreeMap<>(dirty));
        dirty.clear();
      }
      if (segments.size() > 3 && rng.nextInt(3) == 0) {
        segments.clear(); // compaction: one segment of everything; the old ones never come back
        segments.put("seg-" + (++localSeq), new TreeMap<>(counts));
      }
      List<String> names = new ArrayList<>(segments.keySet());
      Map<String, Map<Integer, Integer>> toUpload = new LinkedHashMap<>();
      Map<String, StreamStateHandle> reused = new HashMap<>();
      for (String name : names) {
        StreamStateHandle known = confirmed.get(name);
        if (known != null) {
          reused.put(name, known);
        } else {
          toUpload.put(name, segments.get(name));
        }
      }
      boolean ended = endedInput;
      String backend = backendId;
      Map<String, StreamStateHandle> uploaded = new HashMap<>();
      uploadedBy.put(checkpointId, uploaded);
      return () -> {
        List<IncrementalKeyedStateHandle.SharedFile> shared = new ArrayList<>();
        for (String name : names) {
          if (reused.containsKey(name)) {
            shared.add(new IncrementalKeyedStateHandle.SharedFile(name, reused.get(name), true));
          } else {
            Files.write(scratch, segmentBytes(toUpload.get(name)));
            StreamStateHandle h = storage.writeSharedFile(checkpointId, scratch, "count " + name);
            uploaded.put(name, h);
            shared.add(new IncrementalKeyedStateHandle.SharedFile(name, h, false));
          }
        }
        StreamStateHandle meta =
            storage.writeState(checkpointId, namesBytes(names), "count segments");
        return Map.of(
            COUNT,
            new OperatorSubtaskState(
                new IncrementalKeyedStateHandle(
                    range, backend, checkpointId, meta, shared, List.of()),
                null,
                ended));
      };
    }

    /**
     * A savepoint: every count in the canonical key-group format, as RocksDB writes a savepoint
     * (never incremental or native); the database's segments and uploads are left as they are.
     */
    private Upload captureCanonical(long checkpointId, Target target) {
      Map<Integer, Integer> all = new TreeMap<>(counts);
      return () -> {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        long[] offsets = new long[range.getNumberOfKeyGroups()];
        for (int i = 0; i < offsets.length; i++) {
          offsets[i] = out.size();
          int group = range.startKeyGroup() + i;
          Map<Integer, Integer> inGroup = new TreeMap<>();
          all.forEach(
              (k, n) -> {
                if (KeyGroupRangeAssignment.assignToKeyGroup(k, MAX_PARALLELISM) == group) {
                  inGroup.put(k, n);
                }
              });
          out.write(segmentBytes(inGroup));
        }
        StreamStateHandle data =
            target.writer(checkpointId).writeState(checkpointId, bytes.toByteArray(), "count");
        return Map.of(
            COUNT,
            new OperatorSubtaskState(new KeyGroupsStateHandle(range, offsets, data), null, false));
      };
    }

    @Override
    void completedCheckpoint(long checkpointId) {
      var done = uploadedBy.headMap(checkpointId, true);
      if (savepointIds.contains(checkpointId)) {
        // As RocksDB: a savepoint uploaded nothing of the database's; the uploads of the
        // checkpoints before it are forgotten, not confirmed.
        done.clear();
        return;
      }
      done.values().forEach(confirmed::putAll);
      done.clear();
    }
  }

  /**
   * A two-phase-commit sink: the records since the last snapshot form a transaction, pre-committed
   * (prepared) on the snapshot and committed when the checkpoint completes; on a restore it commits
   * again what the checkpoint holds (idempotent) and aborts every other prepared one. It keeps what
   * it committed in its state as well, for the consistent-cut check.
   */
  private final class SinkTask extends Task {
    final List<Out> open = new ArrayList<>();
    final TreeMap<Long, String> pending = new TreeMap<>();
    final List<Out> committedLog = new ArrayList<>();

    SinkTask(CompletedCheckpoint from) {
      super(2, 0, 1, SINK, from);
    }

    @Override
    void restore(io.weir.runtime.checkpoint.RestoredOperatorState state) throws IOException {
      var p = state.operatorLists().get("pending");
      if (p != null) {
        for (byte[] e : p.elements()) {
          DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(e));
          long ckp = in.readLong();
          String txn = in.readUTF();
          List<Out> outs = readOuts(in);
          commit(txn, outs, true);
          committedLog.addAll(outs);
          trace(id + " commits " + txn + " of checkpoint " + ckp + " again");
        }
      }
      var c = state.operatorLists().get("committed");
      if (c != null) {
        for (byte[] e : c.elements()) {
          committedLog.addAll(readOuts(new DataInputStream(new java.io.ByteArrayInputStream(e))));
        }
      }
    }

    @Override
    void begin() {
      // Whatever an earlier attempt prepared and this checkpoint does not hold is aborted; not a
      // completed savepoint's (Weir's sink aborts only the restored current transaction): a job
      // resumed from that savepoint commits them.
      for (Map.Entry<String, Txn> t : new ArrayList<>(txns.entrySet())) {
        if (t.getValue() == Txn.PREPARED && !savepoints.holds(t.getKey())) {
          abortTxn(t.getKey());
        }
      }
    }

    @Override
    void process(Object record) {
      open.add((Out) record);
    }

    @Override
    Upload capture(long checkpointId, Target target) {
      String txn = "t" + attempt(id) + "." + checkpointId;
      prepare(txn, List.copyOf(open));
      open.clear();
      pending.put(checkpointId, txn);
      List<byte[]> pendingElements = new ArrayList<>();
      for (Map.Entry<Long, String> e : pending.entrySet()) {
        pendingElements.add(txnBytes(e.getKey(), e.getValue(), txnRecords.get(e.getValue())));
      }
      byte[] log = outsBytes(committedLog);
      boolean ended = endedInput && !target.savepoint();
      return () ->
          Map.of(
              SINK,
              new OperatorSubtaskState(
                  null,
                  writeLists(
                      target.writer(checkpointId),
                      checkpointId,
                      Map.of("pending", pendingElements, "committed", List.of(log)),
                      "sink transactions"),
                  ended));
    }

    @Override
    void notifyAborted(long checkpointId) {
      super.notifyAborted(checkpointId);
      if (mutations.contains(Mutation.SINK_COMMITS_FAILED_DRAIN)
          && alive
          && endedInput
          && savepointIds.contains(checkpointId)) {
        // A sink whose input ended for a drained stop takes the savepoint's abort for its end.
        completedCheckpoint(checkpointId);
      }
    }

    @Override
    void completedCheckpoint(long checkpointId) {
      var done = pending.headMap(checkpointId, true);
      for (String txn : done.values()) {
        commit(txn, txnRecords.get(txn), false);
        committedLog.addAll(txnRecords.get(txn));
      }
      done.clear();
    }

    @Override
    void finish() {
      // Transactions of checkpoints after the final one hold nothing: the input had ended. They
      // stay pending, as in Weir's sink (its close aborts only the current one): the job may yet
      // fail and restore such a checkpoint, whose restore commits them; at the job's end they go.
      for (String txn : pending.values()) {
        if (!txnRecords.get(txn).isEmpty()) {
          throw new Violation(
              "exactly-once", id + " finishes with records in transaction " + txn + " uncommitted");
        }
      }
      pending.clear();
      super.finish();
    }
  }

  private static int attempt(ExecutionAttemptId id) {
    return id.attempt();
  }

  // ------------------------------------------------------------------ the external system

  private void prepare(String txn, List<Out> outs) {
    if (txns.containsKey(txn)) {
      throw new Violation("two-phase-commit", "transaction " + txn + " prepared twice");
    }
    txns.put(txn, Txn.PREPARED);
    txnRecords.put(txn, outs);
    txnJob.put(txn, job);
  }

  private void commit(String txn, List<Out> outs, boolean recovery) {
    Txn state = txns.get(txn);
    if (state == null) {
      throw new Violation("two-phase-commit", "commit of unknown transaction " + txn);
    }
    if (state == Txn.ABORTED) {
      throw new Violation("two-phase-commit", "transaction " + txn + " committed after its abort");
    }
    if (state == Txn.COMMITTED && !recovery) {
      throw new Violation("two-phase-commit", "transaction " + txn + " committed twice");
    }
    if (state == Txn.PREPARED) {
      trace("commit " + txn + " (" + outs.size() + " records)");
    }
    txns.put(txn, Txn.COMMITTED);
  }

  private void abortTxn(String txn) {
    Txn state = txns.get(txn);
    if (state == Txn.COMMITTED) {
      throw new Violation("two-phase-commit", "transaction " + txn + " aborted after its commit");
    }
    if (state == Txn.PREPARED) {
      trace("abort " + txn);
    }
    txns.put(txn, Txn.ABORTED);
  }

  // ------------------------------------------------------------------ encodings

  /**
   * A model record framed as the data plane frames records ({@code RecordDeserializer}): a header
   * with the payload's length, then the payload.
   */
  private static byte[] frame(Object record) {
    java.nio.ByteBuffer b;
    if (record instanceof Rec r) {
      b = java.nio.ByteBuffer.allocate(4 + 20);
      b.putInt(20).putInt(r.src()).putInt(r.idx()).putInt(r.key()).putLong(r.ts());
    } else {
      Out o = (Out) record;
      b = java.nio.ByteBuffer.allocate(4 + 17);
      b.putInt(17).putInt(o.key()).putInt(o.count()).putInt(o.src()).putInt(o.idx());
      b.put((byte) (o.late() ? 1 : 0));
    }
    return b.array();
  }

  /** The record {@code view} points at: a source's {@link Rec} or a counter's {@link Out}. */
  private static Object decode(boolean rec, DataInputDeserializer view) throws IOException {
    if (rec) {
      return new Rec(view.readInt(), view.readInt(), view.readInt(), view.readLong());
    }
    return new Out(
        view.readInt(), view.readInt(), view.readInt(), view.readInt(), view.readBoolean());
  }

  /**
   * {@code states} (one operator's) with the in-flight data {@code inFlight} written as the runtime
   * writes it ({@link SubtaskStateCodec}): one stream, a handle per input channel.
   */
  private Map<String, OperatorSubtaskState> withInFlight(
      long checkpointId, Map<String, OperatorSubtaskState> states, InFlightData inFlight)
      throws IOException {
    Map.Entry<String, OperatorSubtaskState> own = states.entrySet().iterator().next();
    OperatorSubtaskState recorded =
        SubtaskStateCodec.persist(
            checkpointId,
            new OperatorSnapshot(own.getKey(), own.getKey(), null, Map.of(), inFlight, null),
            storage.location(checkpointId, null));
    OperatorSubtaskState s = own.getValue();
    return Map.of(
        own.getKey(),
        new OperatorSubtaskState(
            s.keyed(),
            s.operator(),
            recorded.inputChannelState(),
            List.of(),
            null,
            s.finished(),
            null));
  }

  /**
   * The records in the in-flight data of {@code st} (of checkpoint {@code c}), read back through
   * {@link TaskRestore} and cut into records by a {@link RecordDeserializer} per channel: {@link
   * Rec}s for a counter ({@code recs}), {@link Out}s for the sink.
   */
  private static List<Object> inFlightRecords(
      CompletedCheckpoint c, CheckpointStateReader reader, OperatorSubtaskState st, boolean recs)
      throws IOException {
    List<Object> records = new ArrayList<>();
    if (st.inputChannelState().isEmpty()) {
      return records;
    }
    Map<Integer, List<ChannelStateEntry>> inputs =
        new TaskRestore(
                c.checkpointId(),
                reader,
                false,
                Map.of(),
                st.inputChannelState(),
                List.of(),
                TaskRestore.AssignedSplits.NONE)
            .read()
            .inFlight()
            .inputs();
    DataInputDeserializer view = new DataInputDeserializer();
    for (List<ChannelStateEntry> entries : inputs.values()) {
      RecordDeserializer records0 = new RecordDeserializer();
      for (ChannelStateEntry e : entries) {
        if (e instanceof ChannelStateEntry.Bytes b) {
          records0.setNextBuffer(Buffer.wrap(b.bytes()));
          while (records0.nextRecord(view)) {
            records.add(decode(recs, view));
          }
        }
      }
      if (records0.hasPartialRecord()) {
        throw new IOException("the in-flight data of a channel ends in the middle of a record");
      }
    }
    return records;
  }

  private static byte[] segmentBytes(Map<Integer, Integer> seg) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(b);
    out.writeInt(seg.size());
    for (Map.Entry<Integer, Integer> e : seg.entrySet()) {
      out.writeInt(e.getKey());
      out.writeInt(e.getValue());
    }
    return b.toByteArray();
  }

  private static Map<Integer, Integer> readSegment(byte[] bytes) throws IOException {
    return readSegment(new DataInputStream(new java.io.ByteArrayInputStream(bytes)));
  }

  private static Map<Integer, Integer> readSegment(DataInputStream in) throws IOException {
    Map<Integer, Integer> seg = new TreeMap<>();
    int n = in.readInt();
    for (int i = 0; i < n; i++) {
      seg.put(in.readInt(), in.readInt());
    }
    return seg;
  }

  private static byte[] namesBytes(List<String> names) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(b);
    out.writeInt(names.size());
    for (String n : names) {
      out.writeUTF(n);
    }
    return b.toByteArray();
  }

  private static List<String> readNames(byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
    List<String> names = new ArrayList<>();
    int n = in.readInt();
    for (int i = 0; i < n; i++) {
      names.add(in.readUTF());
    }
    return names;
  }

  private byte[] outsBytes(List<Out> outs) {
    try {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(b);
      writeOuts(out, outs);
      return b.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void writeOuts(DataOutputStream out, List<Out> outs) throws IOException {
    out.writeInt(outs.size());
    for (Out o : outs) {
      out.writeInt(o.key());
      out.writeInt(o.count());
      out.writeInt(o.src());
      out.writeInt(o.idx());
      if (unaligned) { // aligned runs keep their files' sizes, so their schedules stay
        out.writeBoolean(o.late());
      }
    }
  }

  private List<Out> readOuts(DataInputStream in) throws IOException {
    int n = in.readInt();
    List<Out> outs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      outs.add(
          new Out(
              in.readInt(),
              in.readInt(),
              in.readInt(),
              in.readInt(),
              unaligned && in.readBoolean()));
    }
    return outs;
  }

  private byte[] txnBytes(long checkpointId, String txn, List<Out> outs) {
    try {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(b);
      out.writeLong(checkpointId);
      out.writeUTF(txn);
      writeOuts(out, outs);
      return b.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ------------------------------------------------------------------ invariants

  /** Every file a retained checkpoint refers to, and its metadata, as paths of the file system. */
  private Set<String> retainedFiles() {
    Set<String> paths = new HashSet<>();
    for (CompletedCheckpoint c : coordinator.retained()) {
      paths.add(jobDir + "/chk-" + c.checkpointId() + "/_metadata");
      for (OperatorState op : c.operators()) {
        for (OperatorSubtaskState st : op.subtasks()) {
          for (StreamStateHandle h : st.handles()) {
            if (h instanceof StreamStateHandle.File f) {
              paths.add(jobDir + "/" + f.relativePath());
            }
          }
        }
      }
    }
    return paths;
  }

  private void checkDelete(String path, boolean recursive) {
    String savepointFile = savepoints.touchedBy(path, recursive);
    if (savepointFile != null) {
      throw caught =
          new Violation(
              "no-retained-file-deleted",
              "deleting "
                  + path
                  + " removes "
                  + savepointFile
                  + ", which is the user's: Weir never deletes a completed savepoint");
    }
    for (String kept : retainedFiles()) {
      if (kept.equals(path) || (recursive && kept.startsWith(path + "/"))) {
        // Kept as well as thrown: the cleaner logs and swallows what a delete throws.
        throw caught =
            new Violation(
                "no-retained-file-deleted",
                "deleting "
                    + path
                    + " removes "
                    + kept
                    + ", which a retained checkpoint refers to");
      }
    }
  }

  /**
   * The checkpoint that just completed is a consistent cut: the keyed counts are those of the
   * records before the sources' offsets, and the sink's transactions (committed or pending) hold
   * exactly the outputs for those counts.
   */
  private void checkCut(long checkpointId) {
    CompletedCheckpoint c = null;
    for (CompletedCheckpoint r : coordinator.retained()) {
      if (r.checkpointId() == checkpointId) {
        c = r;
      }
    }
    if (c != null) {
      checkCut(c, storage, "checkpoint " + checkpointId);
      if (holdsInFlightData(c)) {
        inFlightCheckpoints++;
      }
    }
  }

  /**
   * Each source's offset in {@code c}, read through {@code reader}; a finished one's is the end.
   */
  private long[] sourceOffsets(CompletedCheckpoint c, CheckpointStateReader reader, String what)
      throws IOException {
    long[] offsets = new long[SOURCES];
    OperatorState src = c.operator(SRC);
    for (int i = 0; i < SOURCES; i++) {
      OperatorSubtaskState st = src.subtasks().get(i);
      if (st.hasNoState()) {
        if (!st.finished()) {
          throw new Violation("consistent-cut", what + ": source " + i + " has no state");
        }
        offsets[i] = records;
      } else {
        byte[] data = reader.readState(st.operator().data());
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(data));
        in.skipBytes((int) st.operator().states().get("offset").offsets()[0] + 4);
        offsets[i] = in.readLong();
      }
    }
    return offsets;
  }

  /**
   * {@code c}, read through {@code reader}, is a consistent cut (see {@link #checkCut(long)});
   * {@code what} names it in a violation.
   */
  private void checkCut(CompletedCheckpoint c, CheckpointStateReader reader, String what) {
    checking = true;
    try {
      long[] offsets = sourceOffsets(c, reader, what);
      Map<Integer, Integer> expected = new TreeMap<>();
      for (int s = 0; s < SOURCES; s++) {
        for (int i = 0; i < offsets[s]; i++) {
          expected.merge(keysOf[s][i], 1, Integer::sum);
        }
      }
      Map<Integer, Integer> counts = new TreeMap<>();
      Map<Integer, Integer> inFlight = new TreeMap<>(); // unaligned: records still on their way
      List<OperatorSubtaskState> counterStates = c.operator(COUNT).subtasks();
      for (int subtask = 0; subtask < counterStates.size(); subtask++) {
        OperatorSubtaskState st = counterStates.get(subtask);
        if (st.hasNoState()) {
          return; // a finished counter: nothing to compare once the job is ending
        }
        for (Object r : inFlightRecords(c, reader, st, true)) {
          inFlight.merge(((Rec) r).key(), 1, Integer::sum);
        }
        Map<Integer, Integer> own = new TreeMap<>();
        if (st.keyed() instanceof KeyGroupsStateHandle canonical) {
          // A savepoint's: each key group of the range, in order.
          DataInputStream in =
              new DataInputStream(
                  new java.io.ByteArrayInputStream(reader.readState(canonical.data())));
          for (int i = 0; i < canonical.offsets().length; i++) {
            Map<Integer, Integer> group = readSegment(in);
            for (int k : group.keySet()) {
              if (KeyGroupRangeAssignment.assignToKeyGroup(k, MAX_PARALLELISM)
                  != canonical.range().startKeyGroup() + i) {
                throw new Violation(
                    "key-groups",
                    what + ": counter " + subtask + " writes key " + k + " into another key group");
              }
            }
            own.putAll(group);
          }
        } else {
          IncrementalKeyedStateHandle h = (IncrementalKeyedStateHandle) st.keyed();
          Map<String, StreamStateHandle> byName = new HashMap<>();
          h.sharedFiles().forEach(f -> byName.put(f.localName(), f.handle()));
          for (String name : readNames(reader.readState(h.metaData()))) {
            own.putAll(readSegment(reader.readState(byName.get(name))));
          }
        }
        checkKeyGroups(what, subtask, counterStates.size(), st.keyed().range(), own, counts);
        counts.putAll(own);
      }
      Map<Integer, Integer> cut = new TreeMap<>(counts);
      inFlight.forEach((k, n) -> cut.merge(k, n, Integer::sum));
      if (!cut.equals(expected)) {
        throw new Violation(
            "consistent-cut",
            what
                + ": source offsets "
                + java.util.Arrays.toString(offsets)
                + " make counts "
                + expected
                + " but the keyed state holds "
                + counts
                + (inFlight.isEmpty() ? "" : " and its in-flight data " + inFlight));
      }
      OperatorSubtaskState sink = c.operator(SINK).subtasks().get(0);
      if (sink.hasNoState()) {
        return;
      }
      // The sink's transactions and its in-flight data hold what the counters emitted before
      // their snapshots: the outputs of the counts in their state.
      List<Out> outs = sinkOutputs(c, reader, new ArrayList<>());
      for (Object o : inFlightRecords(c, reader, sink, false)) {
        outs.add((Out) o);
      }
      List<String> got = new ArrayList<>();
      outs.forEach(o -> got.add(o.key() + "=" + o.count()));
      got.sort(null);
      List<String> want = new ArrayList<>();
      counts.forEach(
          (k, n) -> {
            for (int i = 1; i <= n; i++) {
              want.add(k + "=" + i);
            }
          });
      want.sort(null);
      if (!got.equals(want)) {
        throw new Violation(
            "consistent-cut",
            what
                + ": the sink's transactions hold "
                + got.size()
                + " outputs, the cut has "
                + want.size());
      }
    } catch (IOException e) {
      throw new Violation("consistent-cut", what + " cannot be read: " + e.getMessage());
    } finally {
      checking = false;
    }
  }

  /**
   * Counter {@code subtask} of {@code parallelism}, whose keyed state covers {@code range} and
   * holds {@code own}, holds exactly the key groups of its range: the range is the one {@code
   * KeyGroupRangeAssignment} gives its index at that parallelism, and every key lies in it, so no
   * other counter, whose keys are in {@code others}, holds the same key (at another parallelism a
   * restored subtask must take only the key groups of its new range from the old handles).
   */
  private static void checkKeyGroups(
      String what,
      int subtask,
      int parallelism,
      KeyGroupRange range,
      Map<Integer, Integer> own,
      Map<Integer, Integer> others) {
    KeyGroupRange expected =
        KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
            MAX_PARALLELISM, parallelism, subtask);
    if (!range.equals(expected)) {
      throw new Violation(
          "key-groups",
          what
              + ": counter "
              + subtask
              + " of "
              + parallelism
              + " covers "
              + range
              + ", not "
              + expected);
    }
    for (int k : own.keySet()) {
      int group = KeyGroupRangeAssignment.assignToKeyGroup(k, MAX_PARALLELISM);
      if (!range.contains(group) || others.containsKey(k)) {
        throw new Violation(
            "key-groups",
            what
                + ": counter "
                + subtask
                + " of "
                + parallelism
                + " holds key "
                + k
                + " of key group "
                + group
                + (range.contains(group)
                    ? ", which another counter holds too"
                    : ", outside its " + range));
      }
    }
  }

  /**
   * The outputs the sink's state in {@code c} holds, committed and pending, read through {@code
   * reader}; the pending transactions' names go into {@code pendingTxns}.
   */
  private List<Out> sinkOutputs(
      CompletedCheckpoint c, CheckpointStateReader reader, List<String> pendingTxns)
      throws IOException {
    List<Out> outs = new ArrayList<>();
    OperatorSubtaskState sink = c.operator(SINK).subtasks().get(0);
    if (sink.hasNoState()) {
      return outs;
    }
    byte[] data = reader.readState(sink.operator().data());
    for (var list : sink.operator().states().entrySet()) {
      for (long off : list.getValue().offsets()) {
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(data));
        in.skipBytes((int) off + 4);
        if (list.getKey().equals("pending")) {
          in.readLong();
          pendingTxns.add(in.readUTF());
        }
        outs.addAll(readOuts(in));
      }
    }
    return outs;
  }

  /**
   * At the end: the committed output is the uninterrupted run's, every transaction decided. For a
   * job resumed from a savepoint, relative to that savepoint: what its sink held (committed and
   * pending, all of which must be committed now) and what the resumed job committed together are
   * the uninterrupted run's output, every record once. What the cancelled job committed after the
   * savepoint is another timeline's (in the external system those records are there twice, as in
   * Flink's: resuming from an older savepoint replays what followed it).
   */
  private void checkEnd() {
    List<String> got = new ArrayList<>();
    Set<String> committed = new HashSet<>();
    for (String txn : inheritedTxns) {
      if (txns.get(txn) != Txn.COMMITTED) {
        throw new Violation(
            "exactly-once",
            "transaction "
                + txn
                + " of the savepoint the job resumed from ends "
                + txns.get(txn)
                + ", not committed");
      }
    }
    List<Out> lineage = new ArrayList<>(inherited);
    for (Map.Entry<String, Txn> t : txns.entrySet()) {
      if (t.getValue() == Txn.PREPARED) {
        throw new Violation(
            "two-phase-commit", "transaction " + t.getKey() + " neither committed nor aborted");
      }
      if (t.getValue() == Txn.COMMITTED && txnJob.get(t.getKey()) == job) {
        lineage.addAll(txnRecords.get(t.getKey()));
      }
    }
    {
      {
        for (Out o : lineage) {
          got.add(o.key() + "=" + o.count());
          if (unaligned && o.late() != lateOf[o.src()][o.idx()]) {
            throw new Violation(
                "event-time",
                "record "
                    + o.src()
                    + ":"
                    + o.idx()
                    + " at event time "
                    + tsOf[o.src()][o.idx()]
                    + " was taken for "
                    + (o.late() ? "late" : "on time")
                    + "; the uninterrupted run, whose watermark before it was "
                    + watermarkBefore[o.src()][o.idx()]
                    + ", took it for "
                    + (lateOf[o.src()][o.idx()] ? "late" : "on time"));
          }
          if (!committed.add(o.src() + ":" + o.idx()) && !damaged) {
            throw new Violation(
                "exactly-once", "record " + o.src() + ":" + o.idx() + " committed twice");
          }
        }
      }
    }
    Map<Integer, Integer> totals = new TreeMap<>();
    for (int s = 0; s < SOURCES; s++) {
      for (int i = 0; i < records; i++) {
        totals.merge(keysOf[s][i], 1, Integer::sum);
      }
    }
    List<String> want = new ArrayList<>();
    totals.forEach(
        (k, n) -> {
          for (int i = 1; i <= n; i++) {
            want.add(k + "=" + i);
          }
        });
    if (damaged) {
      // The job fell back past a damaged checkpoint whose transactions its sink had committed:
      // the records since the older checkpoint come again, counted from its keyed state. So each
      // record is committed at least once, and the outputs are the uninterrupted run's, some of
      // them twice: never lost, never another count.
      if (committed.size() != SOURCES * records) {
        throw new Violation(
            "exactly-once",
            "committed "
                + committed.size()
                + " of the "
                + SOURCES * records
                + " records after a fallback from a damaged checkpoint");
      }
      got = new ArrayList<>(new java.util.TreeSet<>(got));
    }
    got.sort(null);
    want.sort(null);
    if (!got.equals(want)) {
      throw new Violation(
          "exactly-once",
          "committed " + got.size() + " outputs, the uninterrupted run has " + want.size());
    }
    trace(
        "end: "
            + completed
            + " checkpoints, "
            + savepoints.completedCount()
            + " savepoints, "
            + resumes
            + " resumes, "
            + restarts
            + " restarts, "
            + faults
            + " faults");
  }
}
