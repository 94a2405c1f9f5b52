// What a call's routing costs on its own, without a network: the plan of nodes a call takes and
// the answer noted (NodeOrder.plan and answered, what Transport.call does around its requests),
// for a client without a region, or with --region for one whose first node is in its region.
//   tsc -p tsconfig.json --outDir /tmp/ts-dist && node bench/routing.mjs --dist /tmp/ts-dist [--nodes 3] [--calls 5000000]
// It prints one JSON line: nanoseconds a call, and the young-generation collections
// (scavenges) the calls caused, which count what they allocated whatever the machine's load.
// Each plan is kept in a variable outside the loop, as a call keeps it across its awaits, so
// that the compiler cannot leave out an array the plan allocates.
import { PerformanceObserver, constants } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import path from "node:path";

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const dist = path.resolve(flag("dist", new URL("../dist", import.meta.url).pathname));
const nodes = Number(flag("nodes", "3"));
const calls = Number(flag("calls", "5000000"));
const regional = process.argv.includes("--region");
const { NodeOrder } = await import(pathToFileURL(path.join(dist, "region.js")).href);

const order = new NodeOrder(nodes, regional ? Array.from({ length: nodes }, (_, i) => i === 0) : undefined, true, () => 0);
let kept;
function run(n) {
  for (let i = 0; i < n; i++) {
    // Every fourth call goes to a named node (the leader), the others start where calls start.
    const first = i % 4 === 0 ? 1 : undefined;
    kept = order.plan(first);
    order.answered(kept[0], first);
  }
}

run(calls / 10); // warm-up: the compiler's optimised code, not the interpreter's
let scavenges = 0;
const gc = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
});
gc.observe({ entryTypes: ["gc"] });
const t0 = process.hrtime.bigint();
run(calls);
const ns = Number(process.hrtime.bigint() - t0) / calls;
await new Promise((resolve) => setTimeout(resolve, 50)); // the collections' entries come after the loop
gc.disconnect();
process.stdout.write(JSON.stringify({ regional, nodes, calls, nsPerCall: Number(ns.toFixed(1)), scavenges, kept: kept.length }) + "\n");
