// The dashboard: a page per hash route (#/, #/jobs/ID/checkpoints/CID, ...), each made of
// sections that poll the REST API at the server's refresh interval and redraw only when what
// they read has changed (so a reader's selection, and a browser test's elements, stay put).
import "./style.css";
import { get, type DashboardConfig } from "./api";
import { h } from "./dom";
import { pageFor } from "./pages";

/** A part of a page: what it reads and how it shows it. */
export interface Section {
  id: string;
  load: () => Promise<unknown>;
  render: (data: any) => Node;
}

const app = document.getElementById("app")!;
const status = document.getElementById("status")!;
let refreshMillis = 3000;
let generation = 0;

async function mount(): Promise<void> {
  const mine = ++generation;
  const route = location.hash.replace(/^#/, "") || "/";
  const page = pageFor(route);
  document.querySelectorAll<HTMLAnchorElement>("header nav a").forEach((a) => {
    a.classList.toggle("active", a.dataset.nav === page.nav);
  });
  app.replaceChildren(page.header ?? "");
  for (const section of page.sections) {
    // A header may hold a section's place (the job's title above its tabs).
    if (!document.getElementById(section.id)) app.append(h("section", { id: section.id }));
  }
  const shown = new Map<string, string>();
  while (mine === generation) {
    await Promise.all(page.sections.map((x) => refresh(x, shown)));
    if (mine !== generation) return;
    status.textContent = `updated ${new Date().toLocaleTimeString()}, every ${refreshMillis / 1000} s`;
    await new Promise((resolve) => setTimeout(resolve, refreshMillis));
  }
}

async function refresh(section: Section, shown: Map<string, string>): Promise<void> {
  const el = document.getElementById(section.id);
  if (!el) return;
  let content: Node;
  let key: string;
  try {
    const data = await section.load();
    key = JSON.stringify(data);
    if (shown.get(section.id) === key) return;
    content = section.render(data);
  } catch (e) {
    key = "error:" + String(e);
    if (shown.get(section.id) === key) return;
    content = h("p", { class: "error" }, e instanceof Error ? e.message : String(e));
  }
  shown.set(section.id, key);
  el.replaceChildren(content);
  el.dataset.loaded = "true";
}

async function start(): Promise<void> {
  try {
    const config = await get<DashboardConfig>("/config");
    refreshMillis = Math.max(500, config["refresh-interval"]);
    document.title = `Weir ${config["flink-version"]}`;
  } catch (e) {
    status.textContent = `cannot read /config: ${e instanceof Error ? e.message : e}`;
  }
  window.addEventListener("hashchange", () => void mount());
  await mount();
}

void start();
