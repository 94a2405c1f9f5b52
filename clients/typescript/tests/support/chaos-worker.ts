// One process of the chaos test (chaos.test.ts): a client through every node given, with a HiLo
// generator on a tag all processes share, one on a tag of its own, and identity callers, all
// running until the test closes its input. Then it takes one more of each (so it
// proves it got through the faults), closes the client (which returns the unused ranges) and
// writes what it got as one JSON line.
import { Client, HiLoGenerator } from "../../src/index.js";

const [nodesArg = "", name = "w"] = process.argv.slice(2);
const client = new Client(nodesArg.split(","));
const shared = client.hilo("chaos");
const own = client.hilo(`chaos-${name}`);
const hilo: string[] = [];
const identities: string[] = [];
const errors: string[] = [];
let stopping = false;

/** A pause between rounds, so eight processes share two cores with the nodes. */
const pace = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

async function hiloLoop(gen: HiLoGenerator): Promise<void> {
  while (!stopping) {
    try {
      for (let i = 0; i < 10; i++) hilo.push(await gen.next());
    } catch (e) {
      errors.push(`hilo: ${String(e)}`);
    }
    await pace();
  }
}

async function identityLoop(): Promise<void> {
  while (!stopping) {
    try {
      const b = await client.nextIdentity("chaos", { count: 2, timeoutMs: 20_000 });
      for (let v = b.first; v <= b.last; v++) identities.push(v.toString());
    } catch (e) {
      errors.push(`identity: ${String(e)}`);
    }
    await pace();
  }
}

const began = Date.now();

/** Where the process is, for the test to show when it does not finish. */
function note(what: string): void {
  process.stderr.write(`${name}: ${what} at ${Date.now() - began} ms\n`);
}

const stopped = new Promise<void>((resolve) => {
  process.stdin.on("end", resolve);
  process.stdin.on("data", () => undefined); // reading is what makes "end" come
});

async function main(): Promise<void> {
  // Ready once every kind of call went through once: the test starts its faults after that.
  hilo.push(await shared.next(), await own.next());
  const first = await client.nextIdentity("chaos", { timeoutMs: 20_000 });
  identities.push(first.first.toString());
  process.stdout.write(JSON.stringify({ ready: true }) + "\n");
  const loops = [hiloLoop(shared), hiloLoop(own), identityLoop(), identityLoop()];
  await stopped;
  stopping = true;
  note("stopping");
  await Promise.all(loops);
  note("loops ended");
  hilo.push(await shared.next(), await own.next());
  note("hilo after the faults");
  const last = await client.nextIdentity("chaos", { timeoutMs: 20_000 });
  identities.push(last.first.toString());
  note("identity after the faults");
  await client.close({ timeoutMs: 20_000 });
  note("closed");
  process.stdout.write(JSON.stringify({ hilo, identities, errors, returned: own.stats.returned }) + "\n");
}

// A promise nothing will settle lets Node end with code 0 and no last line: say so and fail.
let finished = false;
process.on("beforeExit", () => {
  if (finished) return;
  note("nothing left to wait on before the end");
  process.exitCode = 1;
});

main().then(() => {
  finished = true;
}).catch((e: unknown) => {
  process.stderr.write(`chaos worker ${name}: ${String(e)}\n`);
  process.exit(1);
});
