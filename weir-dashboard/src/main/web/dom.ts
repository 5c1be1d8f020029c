// A few helpers to build DOM and SVG elements without a framework.

type Attrs = Record<string, string | number | boolean | undefined | null>;
type Child = Node | string | number | null | undefined | false;

function apply(el: Element, attrs: Attrs, children: Child[]): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** An HTML element. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs, children);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element. */
export function s(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG, tag) as SVGElement;
  apply(el, attrs, children);
  return el;
}

/** A table of rows; each row is its cells. */
export function table(id: string, headers: string[], rows: Child[][], rowAttrs?: Attrs[]): HTMLElement {
  return h(
    "table",
    { id },
    h("thead", {}, h("tr", {}, ...headers.map((x) => h("th", {}, x)))),
    h(
      "tbody",
      {},
      ...rows.map((cells, i) => h("tr", rowAttrs?.[i] ?? {}, ...cells.map((c) => h("td", {}, c)))),
    ),
  );
}

/** Milliseconds as "850 ms", "1.8 s", "2 min 5 s". */
export function duration(ms: number | undefined): string {
  if (ms === undefined || ms < 0) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Bytes as "512 B", "1.5 KiB", "3.2 MiB". */
export function bytes(n: number | undefined): string {
  if (n === undefined || n < 0) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Epoch millis as local date and time, or "–" for -1. */
export function time(epochMillis: number | undefined): string {
  if (epochMillis === undefined || epochMillis < 0) return "–";
  return new Date(epochMillis).toLocaleString();
}

/** A job or checkpoint state as a coloured badge. */
export function badge(state: string): HTMLElement {
  return h("span", { class: `badge state-${state.toLowerCase()}` }, state);
}
