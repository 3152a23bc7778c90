// Runs a Python file in a real Pyodide under Node (no browser): the pyodide package of
// package.json, installed by `npm ci`. Used by test_node_pyodide.py.
//
//   node run_in_pyodide.mjs WHEEL_DIR WORK_DIR SCRIPT
//
// WHEEL_DIR (the host folder of wheels) is mounted at /wheels and WORK_DIR at /work;
// micropip is loaded from its wheel in WHEEL_DIR, never from a package index. SCRIPT is
// run with /work as its current folder, then its `async def main()` is awaited. What it
// prints goes to stdout and stderr; an exception ends the process with status 1 and its
// traceback on stderr. fetch() reaches 127.0.0.1 only: any other address is refused.
import { loadPyodide } from "pyodide";
import fs from "node:fs";
import path from "node:path";

const [wheelDir, workDir, script] = process.argv.slice(2).map((p) => path.resolve(p));
if (!script) {
  console.error("usage: node run_in_pyodide.mjs WHEEL_DIR WORK_DIR SCRIPT");
  process.exit(2);
}
const micropip = fs.readdirSync(wheelDir).find((name) => name.startsWith("micropip-"));
if (!micropip) {
  console.error(`no micropip wheel in ${wheelDir}`);
  process.exit(2);
}
const fetchAnywhere = globalThis.fetch;
globalThis.fetch = (resource, options) => {
  const url = new URL(resource instanceof Request ? resource.url : String(resource));
  if (url.hostname !== "127.0.0.1") {
    return Promise.reject(new TypeError(`run_in_pyodide.mjs reaches 127.0.0.1 only, not ${url.href}`));
  }
  return fetchAnywhere(resource, options);
};
const pyodide = await loadPyodide({
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
for (const [host, mountPoint] of [[wheelDir, "/wheels"], [workDir, "/work"]]) {
  pyodide.FS.mkdirTree(mountPoint);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: host }, mountPoint);
}
await pyodide.loadPackage(path.join(wheelDir, micropip), { messageCallback: () => {} });
pyodide.runPython("import os; os.chdir('/work')");
try {
  pyodide.runPython(fs.readFileSync(script, "utf8"), { filename: script });
  await pyodide.runPythonAsync("await main()");
} catch (error) {
  process.stderr.write(String(error.message ?? error) + "\n");
  process.exit(1);
}
