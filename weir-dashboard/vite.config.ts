import { defineConfig } from "vite";

// The app lives in src/main/web; build.mjs names the output directory (inside Maven's target/).
export default defineConfig({
  root: "src/main/web",
  base: "./",
  build: {
    outDir: process.env.WEIR_DASHBOARD_OUT ?? "../../../target/web/io/weir/dashboard/web",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 200,
  },
});
