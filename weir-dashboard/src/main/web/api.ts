// The REST API's replies the dashboard reads, with the server's field names
// (weir-cluster's io.weir.cluster.rest.messages). Optional fields are those the server leaves out,
// or those newer servers add.

export interface DashboardConfig {
  "refresh-interval": number;
  "flink-version": string;
  "timezone-name": string;
}

export interface ClusterOverview {
  taskmanagers: number;
  "slots-total": number;
  "slots-available": number;
  "jobs-running": number;
  "jobs-finished": number;
  "jobs-cancelled": number;
  "jobs-failed": number;
  "flink-version": string;
}

export interface JobSummary {
  jid: string;
  name: string;
  state: string;
  "start-time": number;
  "end-time": number;
  duration: number;
  failure?: string;
}

export interface JobVertex {
  id: string;
  name?: string;
  parallelism?: number;
  status?: string;
  metrics?: Record<string, number | string | boolean>;
}

/** GET /jobs/ID/vertices/VID/backpressure: each subtask's recent shares of time. */
export interface BackPressure {
  "backpressure-level": string;
  subtasks: { subtask: number; "backpressure-level": string; ratio?: number; idleRatio?: number; busyRatio?: number }[];
}

/** A restore's progress, of one subtask or of the job's subtasks together. */
export interface RestoreProgress {
  "bytes-read": number;
  "bytes-total": number;
  "files-read": number;
  "files-total": number;
  duration: number;
  "estimated-time-left": number;
  done: boolean;
  /** Records read so far from restored in-flight data (an unaligned checkpoint's). */
  "records-replayed"?: number;
}

/** GET /jobs/ID/recovery: how far the current attempt's restore has come. */
export interface JobRecovery {
  status: "RESTORING" | "RESTORED" | "NONE";
  "checkpoint-id"?: number;
  total?: RestoreProgress;
  subtasks: {
    "vertex-id": string;
    "vertex-name": string;
    subtask: number;
    status: string;
    "taskmanager-id": string;
    restore: RestoreProgress;
  }[];
}

export interface JobDetails extends JobSummary {
  entryClass: string;
  metrics?: Record<string, number>;
  vertices?: JobVertex[];
}

export interface PlanNode {
  id: string;
  parallelism: number;
  operator: string;
  description: string;
  inputs?: { num: number; id: string; ship_strategy: string }[];
}

export interface JobPlan {
  plan: { jid: string; name: string; nodes: PlanNode[] };
}

export interface ExceptionEntry {
  exceptionName: string;
  message: string;
  /** Every cause with its frames, as the TaskManager printed it. */
  stacktrace?: string;
  timestamp: number;
  taskName: string;
  taskManagerId: string;
}

export interface JobExceptions {
  "root-exception"?: string;
  /** Newest first, as Flink's. */
  exceptionHistory: { entries: ExceptionEntry[]; truncated: boolean };
}

/**
 * A subtask's phases in a checkpoint, "finalize": the coordinator writing the metadata, and
 * "commit": a two-phase-commit sink's commit once told of the completion.
 */
export type Phase = "start_delay" | "alignment" | "sync" | "async" | "acknowledgement" | "finalize" | "commit";

/** A sink subtask's commit after the checkpoint completed. */
export interface SinkCommit {
  /** When the completion reached the subtask, epoch millis (its TaskManager's clock). */
  notified_timestamp: number;
  duration: number;
  failure?: string;
}

export interface SubtaskCheckpoint {
  task: string;
  index: number;
  vertex_id?: string;
  start_delay: number;
  alignment_duration: number;
  unaligned: boolean;
  channel_state_size: number;
  sync_duration: number;
  async_duration: number;
  state_size: number;
  checkpointed_size: number;
  ack_timestamp?: number;
  end_to_end_duration?: number;
  /** Files its upload wrote; -1 when not known. */
  files_written?: number;
  commit?: SinkCommit;
}

/** The subtask acknowledged last and its longest phase; index -1: a vertex's aggregate. */
export interface CriticalPath {
  vertex_id: string;
  task: string;
  index: number;
  phase: Phase;
  duration: number;
  description: string;
  advice?: string;
}

export interface Checkpoint {
  id: number;
  status: string;
  is_unaligned: boolean;
  is_savepoint: boolean;
  trigger_timestamp: number;
  end_to_end_duration: number;
  state_size: number;
  checkpointed_size: number;
  external_path?: string | null;
  failure_message?: string;
  subtasks: SubtaskCheckpoint[];
  critical_path?: CriticalPath;
}

export interface Figures {
  min: number;
  max: number;
  avg: number;
  p50: number;
  p90: number;
  p99: number;
}

export interface CheckpointingStatistics {
  counts: { completed: number; failed: number; in_progress: number; total: number };
  summary: { checkpointed_size: Figures; state_size: Figures; end_to_end_duration: Figures };
  latest: {
    completed?: Checkpoint;
    savepoint?: Checkpoint;
    failed?: Checkpoint;
    restored?: { id: number; restore_timestamp: number; is_savepoint: boolean; external_path: string };
  };
  history: Checkpoint[];
}

export interface ConfigEntry {
  key: string;
  value: string;
}

export interface JobConfig {
  jid: string;
  name: string;
  "execution-config": {
    "restart-strategy": string;
    "job-parallelism": number;
    "object-reuse-mode": boolean;
    "user-config": Record<string, string>;
  };
}

export interface TaskManagerInfo {
  id: string;
  path: string;
  slotsNumber: number;
  freeSlots: number;
  tasks: string[];
  loadedJobs: string[];
  outputBuffers: number;
  outputBufferBytes: number;
}

/** A reply other than 2xx: the server's {"errors": [...]} message, or the status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** GETs a path of the REST API (served from the same origin as the dashboard). */
export async function get<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = await response.json();
      if (Array.isArray(body.errors)) message = body.errors.join("; ");
    } catch {
      // not JSON: keep the status
    }
    throw new ApiError(response.status, `GET ${path}: ${message}`);
  }
  return (await response.json()) as T;
}
