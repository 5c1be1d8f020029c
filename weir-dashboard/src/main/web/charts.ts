// Small SVG charts drawn by hand: one bar per checkpoint, oldest on the left.
import type { Checkpoint } from "./api";
import { h, s } from "./dom";

const WIDTH = 520;
const HEIGHT = 160;
const LEFT = 70;
const BOTTOM = 22;

export function barChart(
  id: string,
  title: string,
  checkpoints: Checkpoint[],
  value: (c: Checkpoint) => number,
  format: (n: number) => string,
): HTMLElement {
  const values = checkpoints.map((c) => Math.max(0, value(c)));
  const max = Math.max(1, ...values);
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - BOTTOM - 8;
  const step = checkpoints.length === 0 ? plotWidth : plotWidth / checkpoints.length;
  const barWidth = Math.max(1, Math.min(24, step * 0.8));
  const svg = s(
    "svg",
    { id, class: "chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": title },
    s("line", { x1: LEFT, y1: 8, x2: LEFT, y2: 8 + plotHeight, class: "axis" }),
    s("line", { x1: LEFT, y1: 8 + plotHeight, x2: WIDTH - 8, y2: 8 + plotHeight, class: "axis" }),
    s("text", { x: LEFT - 6, y: 14, class: "tick", "text-anchor": "end" }, format(max)),
    s("text", { x: LEFT - 6, y: 8 + plotHeight, class: "tick", "text-anchor": "end" }, format(0)),
    ...checkpoints.map((c, i) => {
      const height = (values[i] / max) * plotHeight;
      return s(
        "rect",
        {
          class: "bar",
          x: LEFT + i * step + (step - barWidth) / 2,
          y: 8 + plotHeight - height,
          width: barWidth,
          height: Math.max(height, 0.5),
          "data-checkpoint-id": c.id,
          "data-value": values[i],
        },
        s("title", {}, `checkpoint ${c.id}: ${format(values[i])}`),
      );
    }),
    checkpoints.length > 0
      ? s("text", { x: LEFT, y: HEIGHT - 6, class: "tick" }, `#${checkpoints[0].id}`)
      : s("text", { x: LEFT + 8, y: HEIGHT / 2, class: "tick" }, "no completed checkpoint yet"),
    checkpoints.length > 1
      ? s(
          "text",
          { x: WIDTH - 8, y: HEIGHT - 6, class: "tick", "text-anchor": "end" },
          `#${checkpoints[checkpoints.length - 1].id}`,
        )
      : null,
  );
  return h("figure", { class: "chart-box" }, h("figcaption", {}, title), svg);
}
