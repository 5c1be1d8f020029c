// The job's graph from /jobs/ID/plan: one box per vertex (its chain of operators and its
// parallelism), columns by distance from the sources, edges labelled with their ship strategy.
// When /jobs/ID carries vertices with busy and back-pressured time, boxes are coloured by them.
import type { JobVertex, PlanNode } from "./api";
import { h, s } from "./dom";

const MAX_NAME_CHARS = 44;
const BOX_H = 64;
const GAP_X = 90;
const GAP_Y = 28;

/** Milliseconds per second a vertex was busy or back-pressured, if the server says. */
function load(vertex: JobVertex | undefined): { busy?: number; backPressured?: number } {
  const m = vertex?.metrics;
  if (!m) return {};
  const read = (...names: string[]) => {
    for (const n of names) {
      const v = Number(m[n]);
      if (m[n] !== undefined && Number.isFinite(v)) return v;
    }
    return undefined;
  };
  return {
    busy: read("busyTimeMsPerSecond", "busy-time-ms-per-second"),
    backPressured: read("backPressuredTimeMsPerSecond", "backpressured-time-ms-per-second"),
  };
}

function colour(busy?: number, backPressured?: number): string | undefined {
  if (backPressured !== undefined && backPressured > 100) {
    return `hsl(0, 70%, ${92 - Math.min(1, backPressured / 1000) * 35}%)`;
  }
  if (busy !== undefined) return `hsl(28, 85%, ${95 - Math.min(1, busy / 1000) * 40}%)`;
  return undefined;
}

export function jobGraph(nodes: PlanNode[], vertices?: JobVertex[]): HTMLElement {
  // Room for the longest name (bold 13px text is about 7.6px a character), cut beyond that.
  const longest = Math.max(16, ...nodes.map((n) => Math.min(n.operator.length, MAX_NAME_CHARS)));
  const boxWidth = Math.round(longest * 7.6 + 24);
  const depth = new Map<string, number>();
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const depthOf = (n: PlanNode, seen: Set<string> = new Set()): number => {
    const known = depth.get(n.id);
    if (known !== undefined) return known;
    if (seen.has(n.id)) return 0;
    seen.add(n.id);
    const inputs = (n.inputs ?? []).map((i) => byId.get(i.id)).filter((x): x is PlanNode => !!x);
    const d = inputs.length === 0 ? 0 : 1 + Math.max(...inputs.map((i) => depthOf(i, seen)));
    depth.set(n.id, d);
    return d;
  };
  nodes.forEach((n) => depthOf(n));
  const columns: PlanNode[][] = [];
  for (const n of nodes) (columns[depth.get(n.id)!] ??= []).push(n);
  const position = new Map<string, { x: number; y: number }>();
  columns.forEach((column, c) =>
    column.forEach((n, r) => position.set(n.id, { x: 10 + c * (boxWidth + GAP_X), y: 10 + r * (BOX_H + GAP_Y) })),
  );
  const width = 20 + columns.length * boxWidth + Math.max(0, columns.length - 1) * GAP_X;
  const height = 20 + Math.max(1, ...columns.map((c) => c.length)) * (BOX_H + GAP_Y) - GAP_Y;
  const vertexById = new Map((vertices ?? []).map((v) => [v.id, v]));

  const edges = nodes.flatMap((n) =>
    (n.inputs ?? []).map((input) => {
      const from = position.get(input.id);
      const to = position.get(n.id)!;
      if (!from) return null;
      const x1 = from.x + boxWidth;
      const y1 = from.y + BOX_H / 2;
      const x2 = to.x;
      const y2 = to.y + BOX_H / 2;
      const mid = (x1 + x2) / 2;
      return s(
        "g",
        { class: "edge", "data-from": input.id, "data-to": n.id, "data-ship-strategy": input.ship_strategy },
        s("path", { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2 - 6},${y2}`, "marker-end": "url(#arrow)" }),
        s("text", { x: mid, y: (y1 + y2) / 2 - 6, "text-anchor": "middle", class: "edge-label" }, input.ship_strategy),
      );
    }),
  );

  const boxes = nodes.map((n) => {
    const p = position.get(n.id)!;
    const { busy, backPressured } = load(vertexById.get(n.id));
    const fill = colour(busy, backPressured);
    const name =
      n.operator.length > MAX_NAME_CHARS ? n.operator.slice(0, MAX_NAME_CHARS - 1) + "…" : n.operator;
    return s(
      "g",
      { class: "vertex", "data-vertex-id": n.id, "data-parallelism": n.parallelism, transform: `translate(${p.x},${p.y})` },
      s("rect", { width: boxWidth, height: BOX_H, rx: 6, style: fill ? `fill:${fill}` : undefined }),
      s("text", { x: 10, y: 22, class: "vertex-name" }, name),
      s("text", { x: 10, y: 42, class: "vertex-detail" }, `parallelism ${n.parallelism}`),
      busy !== undefined || backPressured !== undefined
        ? s(
            "text",
            { x: 10, y: 57, class: "vertex-detail" },
            `busy ${Math.round((busy ?? 0) / 10)}% · back-pressured ${Math.round((backPressured ?? 0) / 10)}%`,
          )
        : null,
      s("title", {}, n.description || n.operator),
    );
  });

  return h(
    "div",
    { class: "graph-box" },
    s(
      "svg",
      { id: "job-graph-svg", class: "graph", width, height, viewBox: `0 0 ${width} ${height}` },
      s(
        "defs",
        {},
        s(
          "marker",
          { id: "arrow", viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto" },
          s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow-head" }),
        ),
      ),
      ...edges.filter((e): e is SVGElement => e !== null),
      ...boxes,
    ),
    vertices === undefined
      ? null
      : h("p", { class: "muted" }, "Boxes are coloured by busy time (orange) and back-pressure (red)."),
  );
}
