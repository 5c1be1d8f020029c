// A checkpoint's timeline: one lane per subtask from the trigger (time 0) to the coordinator's
// receipt of its acknowledgement, in phases start delay -> alignment -> sync -> async ->
// acknowledgement, then, for a two-phase-commit sink, its commit once told of the completion; and a
// lane for the coordinator's finalize (writing the metadata after the last acknowledgement). The
// checkpoint's critical path (the subtask acknowledged last and its longest phase, or a sink commit
// longer than all of them) is highlighted and explained.
import type { Checkpoint, CriticalPath, Phase, PlanNode, SubtaskCheckpoint } from "./api";
import { badge, bytes, duration, h, s, table, time } from "./dom";

export const PHASES: { phase: Phase; label: string }[] = [
  { phase: "start_delay", label: "start delay" },
  { phase: "alignment", label: "alignment" },
  { phase: "sync", label: "sync" },
  { phase: "async", label: "async" },
  { phase: "acknowledgement", label: "acknowledgement" },
  { phase: "finalize", label: "finalize" },
  { phase: "commit", label: "sink commit" },
];

const MAX_LABEL_CHARS = 48;
const PLOT_W = 700;
const LANE_H = 18;
const LANE_GAP = 5;
const TOP = 26;

/** Each phase's start and length in millis after the trigger; acknowledgement only once known. */
export function segments(t: SubtaskCheckpoint): { phase: Phase; start: number; length: number }[] {
  const lengths: [Phase, number][] = [
    ["start_delay", t.start_delay],
    ["alignment", t.alignment_duration],
    ["sync", t.sync_duration],
    ["async", t.async_duration],
  ];
  const out: { phase: Phase; start: number; length: number }[] = [];
  let at = 0;
  for (const [phase, length] of lengths) {
    const l = Math.max(0, length);
    out.push({ phase, start: at, length: l });
    at += l;
  }
  if (t.end_to_end_duration !== undefined && t.end_to_end_duration >= 0) {
    out.push({ phase: "acknowledgement", start: at, length: Math.max(0, t.end_to_end_duration - at) });
  }
  return out;
}

/**
 * A sink's commit: from when the completion reached it (never before the checkpoint completed, as
 * its TaskManager's clock may be behind the JobManager's) for as long as it took.
 */
export function commitSegment(t: SubtaskCheckpoint, checkpoint: Checkpoint): { start: number; length: number } | null {
  if (!t.commit) return null;
  const completed = Math.max(0, checkpoint.end_to_end_duration);
  const start = Math.max(completed, t.commit.notified_timestamp - checkpoint.trigger_timestamp);
  return { start, length: Math.max(0, t.commit.duration) };
}

function durationOf(t: SubtaskCheckpoint, phase: Phase, start: number, length: number): number {
  switch (phase) {
    case "start_delay":
      return t.start_delay;
    case "alignment":
      return t.alignment_duration;
    case "sync":
      return t.sync_duration;
    case "async":
      return t.async_duration;
    case "commit":
      return t.commit ? t.commit.duration : -1;
    default:
      return start >= 0 ? length : -1;
  }
}

/** Lanes in the plan's vertex order, then by subtask index. */
function ordered(subtasks: SubtaskCheckpoint[], nodes: PlanNode[]): SubtaskCheckpoint[] {
  const rank = new Map<string, number>();
  nodes.forEach((n, i) => {
    rank.set("id:" + n.id, i);
    rank.set("name:" + n.operator, i);
  });
  const rankOf = (t: SubtaskCheckpoint) =>
    rank.get("id:" + t.vertex_id) ?? rank.get("name:" + t.task) ?? Number.MAX_SAFE_INTEGER;
  return [...subtasks].sort((a, b) => rankOf(a) - rankOf(b) || a.task.localeCompare(b.task) || a.index - b.index);
}

function isCritical(t: SubtaskCheckpoint, c?: CriticalPath): boolean {
  if (!c || t.index !== c.index) return false;
  return t.vertex_id !== undefined ? t.vertex_id === c.vertex_id : t.task === c.task;
}

function niceStep(max: number): number {
  const raw = max / 6;
  const power = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
  for (const m of [1, 2, 5, 10]) if (raw <= m * power) return m * power;
  return 10 * power;
}

export function checkpointTimeline(checkpoint: Checkpoint, nodes: PlanNode[]): HTMLElement {
  const subtasks = ordered(checkpoint.subtasks, nodes);
  const critical = checkpoint.critical_path;
  const parallelismOf = new Map<string, number>();
  for (const n of nodes) parallelismOf.set(n.id, n.parallelism);
  for (const t of subtasks) {
    const key = t.vertex_id ?? t.task;
    if (!parallelismOf.has(key) || t.vertex_id === undefined) {
      parallelismOf.set(key, Math.max(parallelismOf.get(key) ?? 0, t.index + 1));
    }
  }
  const name = (t: SubtaskCheckpoint) =>
    t.index < 0
      ? `${t.task} (all subtasks)`
      : `${t.task} (${t.index + 1}/${parallelismOf.get(t.vertex_id ?? t.task)})`;
  const ends = subtasks.map((t) => {
    const seg = segments(t);
    const last = seg[seg.length - 1];
    return last ? last.start + last.length : 0;
  });
  const lastAck = Math.max(0, ...ends);
  const finalize =
    checkpoint.status === "COMPLETED" && subtasks.some((t) => (t.end_to_end_duration ?? -1) >= 0)
      ? Math.max(0, checkpoint.end_to_end_duration - lastAck)
      : -1;
  // Room for the longest lane label (bold 12px text is about 7.2px a character), cut beyond that.
  const longest = Math.max(11, ...subtasks.map((t) => name(t).length));
  const labelWidth = Math.round(Math.min(longest, MAX_LABEL_CHARS) * 7.2 + 18);
  const short = (label: string) =>
    label.length <= MAX_LABEL_CHARS ? label : "…" + label.slice(label.length - MAX_LABEL_CHARS + 1);
  const commitEnds = subtasks.map((t) => {
    const c = commitSegment(t, checkpoint);
    return c ? c.start + c.length : 0;
  });
  const span = Math.max(1, checkpoint.end_to_end_duration, ...ends, ...commitEnds);
  const scale = PLOT_W / span;
  const laneCount = subtasks.length + (finalize >= 0 ? 1 : 0);
  const height = TOP + laneCount * (LANE_H + LANE_GAP) + 8;
  const step = niceStep(span);
  const ticks: SVGElement[] = [];
  for (let at = 0; at <= span + 0.001; at += step) {
    const x = labelWidth + at * scale;
    ticks.push(
      s("line", { x1: x, y1: TOP - 6, x2: x, y2: height - 4, class: "grid" }),
      s("text", { x, y: TOP - 10, class: "tick", "text-anchor": "middle" }, duration(at)),
    );
  }
  const lanes = subtasks.map((t, i) => {
    const y = TOP + i * (LANE_H + LANE_GAP);
    const laneCritical = isCritical(t, critical);
    const label = name(t);
    return s(
      "g",
      {
        class: laneCritical ? "lane critical" : "lane",
        "data-vertex-id": t.vertex_id,
        "data-task": t.task,
        "data-index": t.index,
        "data-end-to-end": t.end_to_end_duration,
        "data-critical": laneCritical ? "true" : undefined,
      },
      s("rect", { class: "lane-bg", x: 0, y: y - 2, width: labelWidth + PLOT_W + 10, height: LANE_H + 4 }),
      s("text", { class: "lane-label", x: labelWidth - 8, y: y + LANE_H - 5, "text-anchor": "end" }, short(label)),
      ...[
        ...segments(t),
        ...(() => {
          const c = commitSegment(t, checkpoint);
          return c ? [{ phase: "commit" as Phase, start: c.start, length: c.length }] : [];
        })(),
      ].map(({ phase, start, length }) => {
        const segmentCritical = laneCritical && critical!.phase === phase;
        const width = length * scale;
        const failed = phase === "commit" && t.commit?.failure;
        const title =
          phase === "commit"
            ? `${label}: sink commit ${duration(length)}, told of the completion at ${duration(start)}` +
              (failed ? `; failed: ${t.commit!.failure}` : "")
            : `${label}: ${phase.replace("_", " ")} ${duration(length)} (from ${duration(start)})`;
        return s(
          "rect",
          {
            class: `segment phase-${phase}${failed ? " failed" : ""}${segmentCritical ? " critical" : ""}`,
            "data-phase": phase,
            "data-start": start,
            "data-duration": durationOf(t, phase, start, length),
            "data-critical": segmentCritical ? "true" : undefined,
            x: labelWidth + start * scale,
            y,
            width: segmentCritical ? Math.max(width, 3) : width,
            height: LANE_H,
          },
          s("title", {}, title),
        );
      }),
    );
  });

  if (finalize >= 0) {
    const y = TOP + subtasks.length * (LANE_H + LANE_GAP);
    const finalizeCritical = critical?.phase === "finalize";
    lanes.push(
      s(
        "g",
        { class: finalizeCritical ? "coordinator-lane critical" : "coordinator-lane" },
        s("text", { class: "lane-label", x: labelWidth - 8, y: y + LANE_H - 5, "text-anchor": "end" }, "Coordinator"),
        s(
          "rect",
          {
            class: `segment phase-finalize${finalizeCritical ? " critical" : ""}`,
            "data-phase": "finalize",
            "data-start": lastAck,
            "data-duration": finalize,
            "data-critical": finalizeCritical ? "true" : undefined,
            x: labelWidth + lastAck * scale,
            y,
            width: finalizeCritical ? Math.max(finalize * scale, 3) : finalize * scale,
            height: LANE_H,
          },
          s("title", {}, `writing the metadata after the last acknowledgement: ${duration(finalize)}`),
        ),
      ),
    );
  }

  const svg = s(
    "svg",
    {
      id: "checkpoint-timeline",
      class: "timeline",
      "data-checkpoint-id": checkpoint.id,
      width: labelWidth + PLOT_W + 10,
      height,
      viewBox: `0 0 ${labelWidth + PLOT_W + 10} ${height}`,
    },
    ...ticks,
    ...lanes,
  );

  return h(
    "div",
    { class: "checkpoint-detail" },
    h(
      "h3",
      {},
      `Checkpoint ${checkpoint.id} `,
      badge(checkpoint.status),
      h(
        "span",
        { class: "muted" },
        ` triggered ${time(checkpoint.trigger_timestamp)} · ${duration(checkpoint.end_to_end_duration)} end to end · ` +
          `${bytes(checkpoint.checkpointed_size)} written · ${checkpoint.is_unaligned ? "unaligned" : "aligned"}`,
      ),
    ),
    checkpoint.failure_message ? h("p", { class: "error" }, checkpoint.failure_message) : null,
    critical
      ? h(
          "div",
          {
            id: "critical-path",
            class: "critical-path",
            "data-vertex-id": critical.vertex_id,
            "data-index": critical.index,
            "data-phase": critical.phase,
          },
          h("strong", {}, "Critical path: "),
          h("span", { class: "description" }, critical.description),
          critical.advice ? h("p", { class: "advice" }, critical.advice) : null,
        )
      : h(
          "p",
          { class: "muted", id: "critical-path-unknown" },
          "The critical path is not known for this checkpoint (yet).",
        ),
    h(
      "div",
      { class: "legend" },
      ...PHASES.map(({ phase, label }) =>
        h("span", {}, h("i", { class: `swatch phase-${phase}` }), label),
      ),
      h("span", {}, h("i", { class: "swatch critical-swatch" }), "critical path"),
    ),
    h("div", { class: "timeline-box" }, svg),
    table(
      "checkpoint-subtasks",
      [
        "Subtask",
        "Start delay",
        "Alignment",
        "Sync",
        "Async",
        "Acknowledged after",
        "Written",
        "Files",
        "In flight",
        "State",
        "Sink commit",
      ],
      subtasks.map((t) => [
        name(t),
        duration(t.start_delay),
        duration(t.alignment_duration) + (t.unaligned ? " (unaligned)" : ""),
        duration(t.sync_duration),
        duration(t.async_duration),
        duration(t.end_to_end_duration),
        bytes(t.checkpointed_size),
        t.files_written === undefined || t.files_written < 0 ? "–" : String(t.files_written),
        bytes(t.channel_state_size),
        bytes(t.state_size),
        t.commit
          ? duration(t.commit.duration) + (t.commit.failure ? ` failed: ${t.commit.failure}` : "")
          : "–",
      ]),
      subtasks.map((t) => ({ class: isCritical(t, critical) ? "critical" : "" })),
    ),
  );
}
