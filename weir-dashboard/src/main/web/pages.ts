// What each route shows.
import {
  get,
  type BackPressure,
  type Checkpoint,
  type CheckpointingStatistics,
  type ClusterOverview,
  type ConfigEntry,
  type JobConfig,
  type JobDetails,
  type JobExceptions,
  type JobPlan,
  type JobRecovery,
  type JobSummary,
  type JobVertex,
  type RestoreProgress,
  type TaskManagerInfo,
} from "./api";
import { barChart } from "./charts";
import { badge, bytes, duration, h, table, time } from "./dom";
import { jobGraph } from "./graph";
import type { Section } from "./main";
import { checkpointTimeline } from "./timeline";

export interface Page {
  nav: string;
  header?: Node;
  sections: Section[];
}

export function pageFor(route: string): Page {
  const parts = route.split("/").filter((p) => p.length > 0).map(decodeURIComponent);
  if (parts[0] === "taskmanagers") return taskManagersPage();
  if (parts[0] === "jobmanager") return jobManagerPage();
  if (parts[0] === "jobs" && parts[1]) return jobPage(parts[1], parts[2] ?? "graph", parts[3]);
  return overviewPage();
}

function overviewPage(): Page {
  return {
    nav: "overview",
    sections: [
      {
        id: "cluster-overview",
        load: () => get<ClusterOverview>("/overview"),
        render: (o: ClusterOverview) =>
          h(
            "div",
            { class: "cards" },
            card("TaskManagers", o.taskmanagers),
            card("Slots available", `${o["slots-available"]} / ${o["slots-total"]}`),
            card("Running jobs", o["jobs-running"]),
            card("Finished", o["jobs-finished"]),
            card("Cancelled", o["jobs-cancelled"]),
            card("Failed", o["jobs-failed"]),
            card("Version", o["flink-version"]),
          ),
      },
      {
        id: "job-list",
        load: () => get<{ jobs: JobSummary[] }>("/jobs/overview"),
        render: ({ jobs }: { jobs: JobSummary[] }) =>
          jobs.length === 0
            ? h("p", { class: "empty" }, "No jobs yet.")
            : table(
                "jobs",
                ["Name", "State", "Started", "Duration", "Id"],
                [...jobs]
                  .sort((a, b) => b["start-time"] - a["start-time"])
                  .map((j) => [
                    h("a", { href: `#/jobs/${j.jid}`, class: "job-link" }, j.name),
                    badge(j.state),
                    time(j["start-time"]),
                    duration(j.duration),
                    h("code", {}, j.jid),
                  ]),
                jobs.map((j) => ({ "data-job-id": j.jid })),
              ),
      },
    ],
  };
}

function card(label: string, value: string | number): HTMLElement {
  return h("div", { class: "card" }, h("div", { class: "label" }, label), h("div", { class: "value" }, value));
}

function taskManagersPage(): Page {
  return {
    nav: "taskmanagers",
    sections: [
      {
        id: "taskmanagers",
        load: () => get<{ taskmanagers: TaskManagerInfo[] }>("/taskmanagers"),
        render: ({ taskmanagers }: { taskmanagers: TaskManagerInfo[] }) =>
          table(
            "taskmanager-table",
            ["Id", "Address", "Slots (free / all)", "Tasks", "Jobs loaded", "Output buffers"],
            taskmanagers.map((t) => [
              h("code", {}, t.id),
              t.path,
              `${t.freeSlots} / ${t.slotsNumber}`,
              t.tasks.length === 0 ? "–" : h("ul", {}, ...t.tasks.map((x) => h("li", {}, x))),
              t.loadedJobs.length,
              `${t.outputBuffers} (${bytes(t.outputBufferBytes)})`,
            ]),
          ),
      },
    ],
  };
}

function jobManagerPage(): Page {
  return {
    nav: "jobmanager",
    sections: [
      {
        id: "jobmanager-config",
        load: () => get<ConfigEntry[]>("/jobmanager/config"),
        render: (entries: ConfigEntry[]) =>
          h("div", {}, h("h2", {}, "JobManager configuration"), configTable("jobmanager-config-table", entries)),
      },
    ],
  };
}

function configTable(id: string, entries: ConfigEntry[]): HTMLElement {
  return table(
    id,
    ["Key", "Value"],
    [...entries].sort((a, b) => a.key.localeCompare(b.key)).map((e) => [h("code", {}, e.key), e.value]),
  );
}

const TABS: [string, string][] = [
  ["graph", "Overview"],
  ["exceptions", "Exceptions"],
  ["checkpoints", "Checkpoints"],
  ["config", "Configuration"],
];

function jobPage(jobId: string, tab: string, checkpointId?: string): Page {
  const base = `/jobs/${encodeURIComponent(jobId)}`;
  const header = h(
    "div",
    {},
    h("section", { id: "job-header" }),
    h(
      "nav",
      { class: "tabs" },
      ...TABS.map(([name, label]) =>
        h("a", { href: `#/jobs/${jobId}/${name}`, class: name === tab ? "active" : "", "data-tab": name }, label),
      ),
    ),
  );
  const summary: Section = {
    id: "job-header",
    load: () => get<JobDetails>(base),
    render: (job: JobDetails) =>
      h(
        "div",
        { class: "job-title" },
        h("h2", {}, job.name, " ", badge(job.state)),
        h(
          "p",
          { class: "muted" },
          h("code", {}, job.jid),
          ` · started ${time(job["start-time"])} · ${duration(job.duration)}`,
          job.failure ? h("span", { class: "error" }, ` · ${job.failure}`) : null,
        ),
      ),
  };
  const sections: Section[] = [summary];
  switch (tab) {
    case "exceptions":
      sections.push({
        id: "job-exceptions",
        load: () => get<JobExceptions>(`${base}/exceptions`),
        render: (e: JobExceptions) =>
          e.exceptionHistory.entries.length === 0
            ? h("p", { class: "empty" }, "No task has failed.")
            : h(
                "div",
                {},
                ...e.exceptionHistory.entries.map((x) =>
                  h(
                    "details",
                    { class: "exception" },
                    h("summary", {}, `${time(x.timestamp)} · ${x.taskName} on ${x.taskManagerId}: ${x.exceptionName}`),
                    h("pre", {}, x.stacktrace ?? x.message),
                  ),
                ),
              ),
      });
      break;
    case "checkpoints":
      sections.push(...checkpointSections(jobId, base, checkpointId));
      break;
    case "config":
      sections.push(
        {
          id: "job-config",
          load: () => get<JobConfig>(`${base}/config`),
          render: (c: JobConfig) => {
            const x = c["execution-config"];
            return h(
              "div",
              {},
              h("h3", {}, "Execution"),
              table("job-execution-config", ["Setting", "Value"], [
                ["Restart strategy", x["restart-strategy"]],
                ["Parallelism", x["job-parallelism"]],
                ["Object reuse", String(x["object-reuse-mode"])],
              ]),
              h("h3", {}, "Job settings"),
              configTable(
                "job-user-config",
                Object.entries(x["user-config"]).map(([key, value]) => ({ key, value })),
              ),
            );
          },
        },
        {
          id: "job-checkpoint-config",
          load: () => get<Record<string, unknown>>(`${base}/checkpoints/config`),
          render: (c: Record<string, unknown>) =>
            h(
              "div",
              {},
              h("h3", {}, "Checkpointing"),
              configTable(
                "checkpoint-config-table",
                Object.entries(c).map(([key, value]) => ({
                  key,
                  value: typeof value === "object" ? JSON.stringify(value) : String(value),
                })),
              ),
            ),
        },
      );
      break;
    default:
      sections.push({
        id: "job-graph",
        load: async () => {
          const [plan, job] = await Promise.all([get<JobPlan>(`${base}/plan`), get<JobDetails>(base)]);
          if (!job.vertices || job.state !== "RUNNING") return { plan, vertices: job.vertices ?? null };
          // Each vertex coloured by its busiest and most back-pressured subtask of the last seconds.
          const vertices = await Promise.all(
            job.vertices.map(async (v) => {
              try {
                const bp = await get<BackPressure>(`${base}/vertices/${v.id}/backpressure`);
                const max = (pick: (s: BackPressure["subtasks"][number]) => number | undefined) =>
                  Math.max(0, ...bp.subtasks.map((s) => pick(s) ?? 0));
                return {
                  ...v,
                  metrics: {
                    ...(v.metrics ?? {}),
                    busyTimeMsPerSecond: max((s) => s.busyRatio) * 1000,
                    backPressuredTimeMsPerSecond: max((s) => s.ratio) * 1000,
                  },
                };
              } catch {
                return v;
              }
            }),
          );
          return { plan, vertices };
        },
        render: ({ plan, vertices }: { plan: JobPlan; vertices: JobDetails["vertices"] | null }) =>
          jobGraph(plan.plan.nodes, vertices ?? undefined),
      });
      sections.push({
        id: "job-recovery",
        load: () => get<JobRecovery>(`${base}/recovery`),
        render: recoveryPanel,
      });
      sections.push({
        id: "job-vertices",
        load: async () => {
          const job = await get<JobDetails>(base);
          const vertices = job.vertices ?? [];
          // Each vertex's low watermark: the least of its subtasks' input watermarks, as Flink's.
          const lows = await Promise.all(
            vertices.map(async (v) => {
              if (job.state !== "RUNNING") return null;
              try {
                const marks = await get<{ id: string; value: string }[]>(`${base}/vertices/${v.id}/watermarks`);
                return marks.length === 0 ? null : Math.min(...marks.map((m) => Number(m.value)));
              } catch {
                return null;
              }
            }),
          );
          return { vertices, lows };
        },
        render: ({ vertices, lows }: { vertices: JobVertex[]; lows: (number | null)[] }) =>
          vertexTable(vertices, lows),
      });
  }
  return { nav: "", header, sections };
}

function checkpointSections(jobId: string, base: string, selected?: string): Section[] {
  const sections: Section[] = [
    {
      id: "checkpoint-stats",
      load: () => get<CheckpointingStatistics>(`${base}/checkpoints`),
      render: (c: CheckpointingStatistics) => {
        const completed = c.history.filter((x) => x.status === "COMPLETED");
        return h(
          "div",
          {},
          h(
            "div",
            { class: "cards", id: "checkpoint-counts" },
            card("Completed", c.counts.completed),
            card("Failed", c.counts.failed),
            card("In progress", c.counts.in_progress),
            card("Total", c.counts.total),
            card(
              "Restored",
              c.latest.restored
                ? `${c.latest.restored.id} at ${time(c.latest.restored.restore_timestamp)}`
                : "–",
            ),
            card(
              "Duration p50 / p99 / max",
              `${duration(c.summary.end_to_end_duration.p50)} / ${duration(c.summary.end_to_end_duration.p99)} / ${duration(c.summary.end_to_end_duration.max)}`,
            ),
          ),
          c.latest.failed
            ? h(
                "p",
                { class: "error", id: "latest-failure" },
                `Latest failed: ${c.latest.failed.id} at ${time(c.latest.failed.trigger_timestamp)}: ${c.latest.failed.failure_message ?? "no reason given"}`,
              )
            : null,
          h(
            "div",
            { class: "charts" },
            barChart("duration-chart", "End-to-end duration", completed, (x) => x.end_to_end_duration, duration),
            barChart("size-chart", "Checkpointed size", completed, (x) => x.checkpointed_size, bytes),
          ),
          historyTable(jobId, c.history, selected),
        );
      },
    },
  ];
  if (selected) {
    sections.push({
      id: "checkpoint-detail",
      load: async () => {
        const [checkpoint, plan] = await Promise.all([
          get<Checkpoint>(`${base}/checkpoints/details/${encodeURIComponent(selected)}`),
          get<JobPlan>(`${base}/plan`),
        ]);
        return { checkpoint, plan };
      },
      render: ({ checkpoint, plan }: { checkpoint: Checkpoint; plan: JobPlan }) =>
        checkpointTimeline(checkpoint, plan.plan.nodes),
    });
  }
  return sections;
}

function historyTable(jobId: string, history: Checkpoint[], selected?: string): HTMLElement {
  const newestFirst = [...history].reverse();
  return h(
    "div",
    {},
    h("h3", {}, "History"),
    table(
      "checkpoint-history",
      ["Id", "Status", "Kind", "Triggered", "End to end", "Checkpointed", "State", "Subtasks"],
      newestFirst.map((c) => [
        h("a", { href: `#/jobs/${jobId}/checkpoints/${c.id}`, class: "checkpoint-link" }, c.id),
        badge(c.status),
        c.is_savepoint ? "savepoint" : c.is_unaligned ? "unaligned" : "aligned",
        time(c.trigger_timestamp),
        duration(c.end_to_end_duration),
        bytes(c.checkpointed_size),
        bytes(c.state_size),
        c.failure_message ? h("span", { class: "error" }, c.failure_message) : c.subtasks.length,
      ]),
      newestFirst.map((c) => ({
        "data-checkpoint-id": c.id,
        "data-status": c.status,
        class: String(c.id) === selected ? "selected" : "",
      })),
    ),
  );
}

/**
 * The vertices with what their subtasks read and sent, as Flink's job overview lists them: bytes
 * and records over the network, summed over the subtasks; "≥" when a TaskManager did not answer.
 */
/** The restore of the job's current attempt: a bar for the whole and one row per subtask. */
function recoveryPanel(r: JobRecovery): HTMLElement {
  if (r.status === "NONE" || !r.total) return h("div", {});
  const bar = (p: RestoreProgress) =>
    h(
      "span",
      { class: "restore-progress" },
      h("progress", { max: String(Math.max(1, p["bytes-total"])), value: String(p["bytes-read"]) }),
      ` ${bytes(p["bytes-read"])} of ${bytes(p["bytes-total"])}`,
    );
  const left = (p: RestoreProgress) =>
    p.done ? "done" : p["estimated-time-left"] < 0 ? "–" : `${duration(p["estimated-time-left"])} left`;
  const replayed = (p: RestoreProgress) => String(p["records-replayed"] ?? 0);
  const total = r.total;
  return h(
    "div",
    { class: "recovery" },
    h("h3", {}, `Recovery from checkpoint ${r["checkpoint-id"]} `, badge(r.status)),
    h(
      "p",
      { id: "recovery-total" },
      bar(total),
      ` · files ${total["files-read"]} of ${total["files-total"]}` +
        ` · ${replayed(total)} records replayed · ${duration(total.duration)} · ${left(total)}`,
    ),
    table(
      "recovery-subtasks",
      ["Vertex", "Subtask", "Status", "TaskManager", "State read", "Files", "Replayed", "Duration", "Time left"],
      r.subtasks.map((x) => [
        x["vertex-name"],
        String(x.subtask + 1),
        badge(x.status),
        x["taskmanager-id"],
        bar(x.restore),
        `${x.restore["files-read"]} of ${x.restore["files-total"]}`,
        replayed(x.restore),
        duration(x.restore.duration),
        left(x.restore),
      ]),
    ),
  );
}

/** Flink's "No Watermark" below this: Long.MIN_VALUE, as a JavaScript number. */
const NO_WATERMARK = -9.2e18;

function watermark(low: number | null): string {
  if (low === null) return "–";
  return low <= NO_WATERMARK ? "No watermark" : new Date(low).toISOString().replace("T", " ").replace("Z", "");
}

function vertexTable(vertices: JobVertex[], lows: (number | null)[]): HTMLElement {
  const counter = (v: JobVertex, name: string, format: (n: number) => string) => {
    const value = Number(v.metrics?.[name]);
    if (!Number.isFinite(value)) return "–";
    return (v.metrics?.[`${name}-complete`] === false ? "≥ " : "") + format(value);
  };
  const count = (n: number) => n.toLocaleString();
  return table(
    "job-vertices-table",
    [
      "Name",
      "Status",
      "Parallelism",
      "Bytes received",
      "Records received",
      "Bytes sent",
      "Records sent",
      "Low watermark",
    ],
    vertices.map((v, i) => [
      v.name ?? v.id,
      v.status ? badge(v.status) : "–",
      String(v.parallelism ?? "–"),
      counter(v, "read-bytes", bytes),
      counter(v, "read-records", count),
      counter(v, "write-bytes", bytes),
      counter(v, "write-records", count),
      watermark(lows[i] ?? null),
    ]),
    vertices.map((v) => ({ "data-vertex-id": v.id })),
  );
}
