// A program that takes HiLo IDs and ends without closing its client: the generator's unused
// numbers must still go back (exit.test.ts), through the runtime's end-of-program hook.
import { Client } from "../../src/index.js";

async function main(): Promise<void> {
  const client = new Client([process.argv[2] ?? ""]);
  const gen = client.hilo("orders");
  const ids = [await gen.next(), await gen.next(), await gen.next()];
  process.stdout.write(JSON.stringify(ids) + "\n");
}

main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(1);
});
