#!/usr/bin/env node
// The `mcpspec` command of the npm package: runs the binary of the platform package npm
// installed beside it (one per platform, as optional dependencies: the pattern of esbuild and
// biome), with the same arguments, standard streams and exit status. Signals that reach this
// launcher are passed on, so a cancelled CI job still leaves mcpspec's reports and no process.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

const PLATFORMS = {
  "linux-x64": "@mcpspec/linux-x64",
  "linux-arm64": "@mcpspec/linux-arm64",
  "darwin-x64": "@mcpspec/darwin-x64",
  "darwin-arm64": "@mcpspec/darwin-arm64",
  "win32-x64": "@mcpspec/win32-x64",
};

function binary() {
  if (process.env.MCPSPEC_BINARY) return process.env.MCPSPEC_BINARY;
  const key = `${process.platform}-${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    console.error(`mcpspec: no build for ${key}; install with cargo (cargo install mcpspec) instead`);
    process.exit(2);
  }
  const exe = process.platform === "win32" ? "mcpspec.exe" : "mcpspec";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    console.error(
      `mcpspec: the package ${pkg} is not installed (npm leaves optional dependencies out with ` +
        `--no-optional or --omit=optional); reinstall mcpspec with them`,
    );
    process.exit(2);
  }
}

const child = spawn(binary(), process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (e) => {
  console.error(`mcpspec: cannot run ${path.basename(e.path || "mcpspec")}: ${e.message}`);
  process.exit(3);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Ended by a signal: end the same way, so the caller sees what happened.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 3);
  }
});
