// The TypeScript client's figures for docs/BENCHMARKS.md, one JSON line each:
//   node build/bench/bench.js --nodes 127.0.0.1:7081,127.0.0.1:7082,127.0.0.1:7083 [--seconds 5]
// HiLo IDs per second from one generator in this process (awaited one after another), and
// identities per second with 64 calls in flight through the nodes given.
import { Client } from "../src/index.js";

const CONCURRENT_IDENTITY_CALLS = 64;

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function usage(msg: string): never {
  process.stderr.write(`${msg}\nusage: node build/bench/bench.js --nodes host:port,... [--seconds N (1..600, default 5)]\n`);
  process.exit(2);
}

const nodes = (flag("nodes") ?? process.env.IDNODE_HTTP_NODES ?? "").split(",").filter((n) => n !== "");
if (nodes.length === 0) usage("give the nodes' HTTP addresses with --nodes");
const seconds = Number(flag("seconds") ?? "5");
if (!Number.isInteger(seconds) || seconds < 1 || seconds > 600) usage(`--seconds must be a whole number from 1 to 600 (got ${flag("seconds")})`);

function now(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}

function report(figure: string, count: number, elapsed: number, extra: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ client: "typescript", figure, perSecond: Math.round(count / elapsed), count, seconds: Number(elapsed.toFixed(3)), ...extra }) + "\n");
}

async function hilo(client: Client): Promise<void> {
  const gen = client.newHiLoGenerator(`bench-hilo-${process.pid}`);
  // Warm up: the ranges double from 32 to 1,048,576 while IDs are taken fast.
  for (let i = 0; i < 2_000_000; i++) await gen.next();
  let count = 0;
  const start = now();
  const end = start + seconds;
  let last = "";
  while (now() < end) {
    for (let i = 0; i < 100_000; i++) last = await gen.next();
    count += 100_000;
  }
  report("hilo_ids", count, now() - start, { last, waits: gen.stats.waits, rangeSize: gen.stats.rangeSize });
  await gen.close();
}

async function identities(client: Client): Promise<void> {
  const name = `bench-identity-${process.pid}`;
  await client.nextIdentity(name); // learns the leader
  let count = 0;
  const start = now();
  const end = start + seconds;
  await Promise.all(
    Array.from({ length: CONCURRENT_IDENTITY_CALLS }, async () => {
      while (now() < end) {
        await client.nextIdentity(name, { timeoutMs: 10_000 });
        count++;
      }
    }),
  );
  report("identities", count, now() - start, { concurrent: CONCURRENT_IDENTITY_CALLS });
}

async function main(): Promise<void> {
  const client = new Client(nodes);
  try {
    await hilo(client);
    await identities(client);
  } finally {
    await client.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${String(e)}\n`);
  process.exit(1);
});
