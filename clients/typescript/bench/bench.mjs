// The TypeScript client's figures for docs/BENCHMARKS.md (bench/clients.sh runs it beside the
// other clients), one JSON line each, against the compiled package (tsc -p . first):
//   node bench/bench.mjs --nodes 127.0.0.1:7081,127.0.0.1:7082,127.0.0.1:7083 [--concurrency 64] [--duration 5] [--only hilo|identities]
// HiLo IDs per second from one generator in this process, awaited one after another, and
// identities per second with --concurrency calls in flight through the nodes given, with this
// process's CPU time per identity (user and system): on a machine the client shares with the
// cluster, the figure that does not depend on how busy the machine is.
import { Client } from "../dist/index.js";

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

function usage(msg) {
  process.stderr.write(`bench: ${msg}\nusage: node bench/bench.mjs --nodes host:port,... [--concurrency 1..1024] [--duration 1..600] [--only hilo|identities]\n`);
  process.exit(2);
}

function wholeFlag(name, fallback, min, max) {
  const v = Number(flag(name, String(fallback)));
  if (!Number.isInteger(v) || v < min || v > max) usage(`--${name} must be a whole number from ${min} to ${max}`);
  return v;
}

const nodes = (flag("nodes", "") ?? "").split(",").filter((n) => n !== "");
if (nodes.length === 0) usage("give the nodes' HTTP addresses with --nodes");
const concurrency = wholeFlag("concurrency", 64, 1, 1024);
const duration = wholeFlag("duration", 5, 1, 600);
const only = flag("only", "");
if (only !== "" && only !== "hilo" && only !== "identities") usage("--only must be hilo or identities");

const now = () => Number(process.hrtime.bigint()) / 1e9;

function report(figure, count, seconds, extra) {
  process.stdout.write(JSON.stringify({ client: "typescript", figure, value: Math.round(count / seconds), ids: count, seconds: Number(seconds.toFixed(3)), ...extra }) + "\n");
}

async function hilo(client) {
  const gen = client.newHiLoGenerator(`bench-hilo-${process.pid}`);
  // Warm up: the ranges double from 32 to 1,048,576 while IDs are taken fast.
  for (let i = 0; i < 2_000_000; i++) await gen.next();
  const start = now();
  const end = start + duration;
  let count = 0;
  while (now() < end) {
    for (let i = 0; i < 100_000; i++) await gen.next();
    count += 100_000;
  }
  // waits: a loop that only awaits next() never lets a fetch land, so it waits once per range.
  report("hilo_ids_per_second", count, now() - start, { waits: gen.stats.waits, rangeSize: gen.stats.rangeSize });
  await gen.close();
}

async function identities(client) {
  const name = `bench-identity-${process.pid}`;
  await client.nextIdentity(name); // learns the leader
  const cpu = process.cpuUsage();
  const start = now();
  const end = start + duration;
  let count = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (now() < end) {
        await client.nextIdentity(name, { timeoutMs: 10_000 });
        count++;
      }
    }),
  );
  const seconds = now() - start;
  const used = process.cpuUsage(cpu);
  report("identities_per_second", count, seconds, { callers: concurrency, cpuMicrosPerId: Number(((used.user + used.system) / count).toFixed(2)) });
}

const client = new Client(nodes);
try {
  if (only !== "identities") await hilo(client);
  if (only !== "hilo") await identities(client);
} finally {
  await client.close();
}
