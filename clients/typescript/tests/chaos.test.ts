import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { IdCluster, httpAddrs } from "./support/cluster.js";

const WORKERS = 8;

interface Outcome {
  hilo: string[];
  identities: string[];
  errors: string[];
  returned: boolean;
}

/** A worker process and the JSON lines it wrote. */
class Worker {
  readonly proc: ChildProcess;
  private lines: Record<string, unknown>[] = [];
  private waiters: (() => void)[] = [];
  private out: string[] = [];
  private err = "";
  private closed = false;
  readonly exited: Promise<number | null>;

  constructor(nodes: string[], name: string) {
    const script = fileURLToPath(new URL("./support/chaos-worker.js", import.meta.url).href);
    this.proc = spawn(process.execPath, [script, nodes.join(","), name], { stdio: ["pipe", "pipe", "pipe"] });
    this.proc.stdout?.setEncoding("utf8");
    this.proc.stdout?.on("data", (chunk) => {
      // A worker's last line is megabytes: look for its end in each chunk, not in all of it.
      const parts = String(chunk).split("\n");
      this.out.push(parts[0] ?? "");
      for (const part of parts.slice(1)) {
        this.lines.push(JSON.parse(this.out.join("")) as Record<string, unknown>);
        this.out = [part];
        for (const w of this.waiters.splice(0)) w();
      }
    });
    this.proc.stderr?.setEncoding("utf8");
    this.proc.stderr?.on("data", (chunk) => {
      this.err += String(chunk);
    });
    // "close", not "exit": a process can exit before the reader has its output, and a worker's
    // last line is megabytes, so at "exit" it may still be arriving.
    this.exited = new Promise((resolve) => {
      this.proc.on("close", (code) => {
        this.closed = true;
        for (const w of this.waiters.splice(0)) w();
        resolve(code);
      });
    });
  }

  get stderr(): string {
    return this.err;
  }

  /** The worker's next line; fails when it exits without one. */
  async line(): Promise<Record<string, unknown>> {
    for (;;) {
      const l = this.lines.shift();
      if (l !== undefined) return l;
      if (this.closed) throw new Error(`worker exited ${this.proc.exitCode}: ${this.err}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

test("eight processes through three nodes while the leader is killed twice: no ID twice, unused ranges returned", { timeout: 240_000 }, async (t) => {
  const cluster = new IdCluster();
  const workers: Worker[] = [];
  try {
    // Every range through the leader: with HiLo pools a range goes back only to the node that
    // granted it, and a node killed since drops its pool's grants (a gap, never a repeat), so
    // "every unused range went back" would pass or fail by which node a kill hit.
    const info = await cluster.start({ nodes: 3, hiloPools: false });
    for (let i = 0; i < WORKERS; i++) workers.push(new Worker(httpAddrs(info), `w${i}`));
    for (const w of workers) assert.deepEqual(await w.line(), { ready: true });
    t.diagnostic("every process got IDs of each kind");
    for (let round = 0; round < 2; round++) {
      const [killed] = await cluster.fault("kill", "leader");
      await cluster.leader();
      // Back to three before the next kill, so that one kill never costs the quorum.
      await cluster.fault("restart", killed);
      t.diagnostic(`leader ${killed} killed, another elected, ${killed} back`);
    }
    for (const w of workers) w.proc.stdin?.end();
    t.diagnostic("processes told to stop");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`processes still running 90 s after stop:\n${workers.map((w) => w.stderr).join("\n")}`)), 90_000);
    });
    const outcomes = (await Promise.race([Promise.all(workers.map((w) => w.line())), late])) as unknown as Outcome[];
    clearTimeout(timer);
    const hilo = outcomes.flatMap((o) => o.hilo);
    const identities = outcomes.flatMap((o) => o.identities);
    assert.equal(new Set(hilo).size, hilo.length, "a HiLo ID was handed out twice");
    assert.equal(new Set(identities).size, identities.length, "an identity was handed out twice");
    assert.ok(hilo.length > WORKERS * 4 && identities.length > WORKERS * 2, `too few IDs: ${hilo.length} HiLo, ${identities.length} identities`);
    assert.deepEqual(outcomes.flatMap((o) => o.errors), [], "calls failed though the cluster kept a quorum");
    assert.deepEqual(outcomes.map((o) => o.returned), workers.map(() => true), "a process's unused range of its own tag did not go back");
    for (const w of workers) assert.equal(await w.exited, 0);
  } finally {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill("SIGKILL");
    await cluster.close();
  }
});
