// Builds the dashboard into the directory given (Maven's target/web/io/weir/dashboard/web) with
// the machine's node and npm, and notes when in the stamp file given (kept out of the jar):
// 'npm ci' when node_modules is missing or older than the lock file, 'npm run build' when the
// output is missing or older than any source. Nothing else is fetched.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`[weir-dashboard] Vite needs Node 20.19 or newer; this is ${process.version}: install a newer Node`);
  process.exit(1);
}

const out = resolve(process.argv[2] ?? "target/web/io/weir/dashboard/web");
const stamp = resolve(process.argv[3] ?? "target/dashboard-build-stamp");
const sources = ["src", "package.json", "package-lock.json", "tsconfig.json", "vite.config.ts", "build.mjs"];
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function newest(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), s.mtimeMs);
}

function run(...args) {
  console.log(`[weir-dashboard] npm ${args.join(" ")}`);
  execFileSync(npm, args, { stdio: "inherit", env: { ...process.env, WEIR_DASHBOARD_OUT: out } });
}

const installed = "node_modules/.package-lock.json";
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync("package-lock.json").mtimeMs) {
  run("ci", "--no-audit", "--no-fund");
}
const built = existsSync(stamp) && existsSync(join(out, "index.html")) ? statSync(stamp).mtimeMs : -1;
if (built < Math.max(...sources.filter(existsSync).map(newest))) {
  run("run", "build");
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, new Date().toISOString() + "\n");
} else {
  console.log("[weir-dashboard] up to date: " + out);
}
