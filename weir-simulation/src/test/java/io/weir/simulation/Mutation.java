package io.weir.simulation;

/**
 * A bug planted by hand at a seam the simulation controls, to show that the invariants catch it.
 * None is active in a normal run.
 */
enum Mutation {
  /** The coordinator's context tells every task twice that a checkpoint completed. */
  DOUBLE_NOTIFY,
  /**
   * Discarding a subsumed checkpoint also deletes the shared files it uploaded, though later
   * checkpoints may still refer to them (a cleaner that treats shared files as a checkpoint's own).
   */
  EARLY_SHARED_DELETE,
  /** The job master's gateway hands acknowledgements of any attempt to the coordinator. */
  OLD_ATTEMPT_ACK,
  /**
   * Discarding a subsumed checkpoint also deletes the savepoints taken before it (a cleaner that
   * counts savepoints among the checkpoints a newer one subsumes).
   */
  SUBSUMED_SAVEPOINT_DELETE,
  /**
   * A restart of a job resumed from a savepoint restores that savepoint even when the job has a
   * newer checkpoint of its own (a savepoint taken for the latest checkpoint).
   */
  RESTORE_SAVEPOINT_OVER_CHECKPOINT,
  /**
   * A task restored from an unaligned checkpoint replays the in-flight data of all its input
   * channels but the last (channel state lost for one channel).
   */
  DROPPED_CHANNEL_STATE,
  /**
   * A task restored from an unaligned checkpoint replays the in-flight buffers but neither the
   * watermarks among them nor the event time at the cut: it starts event time afresh, so replayed
   * records that were late are taken for on-time ones (the event-time bug of issue 44).
   */
  WATERMARKS_NOT_RESTORED,
  /**
   * A job master that takes the job over knows nothing of a stop-with-savepoint that completed
   * under the lost one (nothing on ZooKeeper records it): it restores the newest checkpoint.
   */
  STOP_NOT_RECORDED,
  /**
   * The coordinator tells the tasks only once that the stop-with-savepoint completed: a task that
   * missed it stays suspended.
   */
  STOP_TOLD_ONCE,
  /**
   * The coordinator measures min pause on the wall clock: a step back holds checkpoints back for
   * the length of the step.
   */
  WAITS_ON_WALL_CLOCK,
  /**
   * A cancelled job's end is recorded only after its checkpoints are deleted: a job master taking
   * over in between runs the job again from its beginning.
   */
  END_RECORDED_AFTER_CLEANUP,
  /**
   * A counter of a job resumed at another parallelism takes, from the old handles it is given, the
   * key groups its subtask index had at the old parallelism instead of its new range.
   */
  RESCALED_OLD_KEY_GROUPS,
  /**
   * A source asked to stop with a savepoint and drain emits the savepoint's barrier first and then
   * reads its input to the end, rather than ending its input before the barrier: the drained
   * savepoint misses what the source read after it.
   */
  DRAIN_BARRIER_FIRST,
  /**
   * A sink whose input ended for a stop-with-savepoint with drain commits what the savepoint holds
   * when the savepoint is aborted, as if the job ended there; the job fails over to its newest
   * checkpoint and reads those records again.
   */
  SINK_COMMITS_FAILED_DRAIN
}
