import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client, ClientOptions, IdnodeError, NumericGenerator, opaqueId, opaqueNumericId } from "../../src/index.js";
import { Deadline } from "../../src/transport.js";
import { ClusterInfo, IdCluster, Topology, httpAddrs, httpRegions } from "./cluster.js";
import { Saved, mismatch, resolveRefs } from "./match.js";

/** A scenario file (test/conformance/README.md, "A scenario"). */
export interface Scenario {
  file: string;
  description: string;
  topology: Topology;
  requires: string[];
  steps: Step[];
}

interface Step {
  op?: string;
  fault?: string;
  node?: string;
  client?: string;
  args?: Record<string, unknown>;
  deadlineMs?: number;
  /** How long the operation may take, whatever its outcome. */
  withinMs?: number;
  expect?: { result?: unknown; error?: { code?: string; reason?: string } };
  save?: string;
}

/**
 * What this client cannot do. It speaks HTTP/JSON only (no "grpc"), and the platform's fetch
 * takes neither a CA of the run's nor a client certificate: Node's fetch trusts only the CAs it
 * started with (NODE_EXTRA_CA_CERTS is read once, at start) and can present a certificate only
 * through undici's Agent, which is not part of Node's built-in modules.
 */
export const LACKS: Record<string, string> = {
  grpc: "the TypeScript client speaks HTTP/JSON only",
  tls: "the platform's fetch cannot be given the run's CA after the process started",
  mtls: "the platform's fetch cannot present a client certificate",
};

export function loadScenarios(dir: string): Scenario[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => {
      const s = JSON.parse(readFileSync(join(dir, file), "utf8")) as Omit<Scenario, "file">;
      return { ...s, file, requires: s.requires ?? [], topology: s.topology ?? {} };
    });
}

/** Why the runner skips a scenario, or undefined when it runs it. */
export function skipReason(s: Scenario): string | undefined {
  const missing = s.requires.filter((r) => r in LACKS);
  return missing.length > 0 ? missing.map((r) => `${r}: ${LACKS[r]}`).join("; ") : undefined;
}

/**
 * The options every client of a run gets. Nodes in order, as the Go runner does: under HiLo pools
 * a fresh client's first range comes from the pool of the node it asks, so hilo-return-on-close
 * sees its returned numbers again only when both clients start at the same node.
 */
const RUNNER_DEFAULTS: ClientOptions = { nodesInOrder: true };

/** One client of a scenario, and its numeric generator made on first use. */
interface RunClient {
  client: Client;
  numeric?: NumericGenerator;
}

type Args = Record<string, unknown>;

function str(a: Args, k: string): string | undefined {
  const v = a[k];
  return v === undefined ? undefined : String(v);
}

function num(a: Args, k: string): number | undefined {
  const v = a[k];
  return v === undefined ? undefined : Number(v);
}

function big(a: Args, k: string): bigint | undefined {
  const v = a[k];
  return v === undefined ? undefined : BigInt(v as string | number);
}

function strs(a: Args, k: string): string[] {
  const v = a[k];
  return Array.isArray(v) ? v.map(String) : [];
}

/** Runs the scenarios' steps against clusters the control program starts. */
export class ScenarioRun {
  private readonly saved: Saved = new Map();
  private readonly clients = new Map<string, RunClient>();
  private info: ClusterInfo | undefined;

  constructor(private readonly cluster: IdCluster, private readonly scenario: Scenario) {}

  /** Starts the topology, runs every step, and always closes the clients and tears down. */
  async run(log: (line: string) => void): Promise<void> {
    this.info = await this.cluster.start(this.scenario.topology);
    try {
      this.clients.set("c", { client: new Client(httpAddrs(this.info), RUNNER_DEFAULTS) });
      for (const [i, step] of this.scenario.steps.entries()) {
        log(`step ${i + 1}: ${JSON.stringify(step)}`);
        try {
          await this.step(step);
        } catch (e) {
          throw new Error(`${this.scenario.file} step ${i + 1} (${step.op ?? step.fault}): ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    } finally {
      await Promise.allSettled([...this.clients.values()].map((c) => this.closeClient(c)));
      this.clients.clear();
      await this.cluster.teardown();
    }
  }

  /** Closes c within its own close bound (the closeTimeoutMs option's), and deadlineMs at most. */
  private async closeClient(c: RunClient, deadlineMs = 10_000): Promise<void> {
    const deadline = new Deadline({ timeoutMs: deadlineMs }, deadlineMs);
    try {
      await c.client.close({ signal: deadline.signal });
    } finally {
      deadline.dispose();
    }
  }

  private async step(step: Step): Promise<void> {
    if (step.fault !== undefined) {
      const answer = await this.cluster.must(step.node === undefined ? { cmd: step.fault } : { cmd: step.fault, node: step.node });
      const why = step.expect?.result === undefined ? null : mismatch(step.expect.result, answer, this.saved);
      if (why !== null) throw new Error(why);
      if (step.save !== undefined) this.saved.set(step.save, answer);
      return;
    }
    const op = step.op ?? "";
    const args = resolveRefs(step.args ?? {}, this.saved) as Args;
    const name = step.client ?? "c";
    const deadlineMs = step.deadlineMs ?? 10_000;
    let result: unknown;
    let error: unknown;
    const began = performance.now();
    try {
      result = await this.operation(op, name, args, deadlineMs);
    } catch (e) {
      error = e;
    }
    const took = performance.now() - began;
    if (step.withinMs !== undefined && took > step.withinMs) {
      throw new Error(`took ${Math.round(took)} ms, more than withinMs ${step.withinMs} (outcome: ${error === undefined ? "a result" : String(error)})`);
    }
    const expect = step.expect;
    if (expect?.error !== undefined) {
      if (error === undefined) throw new Error(`want an error ${JSON.stringify(expect.error)}, got the result ${JSON.stringify(result, (_, x: unknown) => (typeof x === "bigint" ? String(x) : x))}`);
      if (!(error instanceof IdnodeError)) throw new Error(`want an IdnodeError ${JSON.stringify(expect.error)}, got ${String(error)}`);
      const want = expect.error;
      if ((want.code !== undefined && want.code !== error.codeName) || (want.reason !== undefined && want.reason !== error.reason)) {
        throw new Error(`want ${want.code ?? "any code"}/${want.reason ?? "any reason"}, got ${error.codeName}/${error.reason}: ${error.message}`);
      }
      return;
    }
    if (error !== undefined) throw error;
    if (expect?.result !== undefined) {
      const why = mismatch(expect.result, result, this.saved);
      if (why !== null) throw new Error(why);
    }
    if (step.save !== undefined) this.saved.set(step.save, result);
  }

  private runClient(name: string): RunClient {
    const c = this.clients.get(name);
    if (c === undefined) throw new Error(`no client ${JSON.stringify(name)} is open`);
    return c;
  }

  /** The tags of node selectors or tags (README: "SEL"). */
  private async selectTags(sels: string[]): Promise<string[]> {
    const info = this.info as ClusterInfo;
    const all = info.nodes.map((n) => n.tag);
    const tags: string[] = [];
    for (const sel of sels) {
      if (sel === "all") tags.push(...all);
      else if (sel === "leader" || sel === "follower" || sel === "followers") {
        const leader = await this.cluster.leader();
        const followers = all.filter((t) => t !== leader);
        tags.push(...(sel === "leader" ? [leader] : sel === "follower" ? followers.slice(0, 1) : followers));
      } else tags.push(sel);
    }
    return tags;
  }

  private async open(name: string, a: Args): Promise<object> {
    const info = this.info as ClusterInfo;
    const opts: ClientOptions = { ...RUNNER_DEFAULTS };
    const db = str(a, "database");
    if (db !== undefined) opts.database = db;
    const key = a.apiKey;
    if (typeof key === "string") {
      const secret = info.keys[key];
      if (secret === undefined) throw new Error(`the topology made no key ${JSON.stringify(key)}`);
      opts.apiKey = secret;
    } else if (key !== null && typeof key === "object" && "secret" in key) {
      opts.apiKey = String((key as { secret: unknown }).secret);
    }
    if (a.tls === true || a.clientCert === true) throw new Error(`${LACKS.tls}; a scenario that needs it must list "tls" in requires`);
    const tags = Array.isArray(a.nodes) ? await this.selectTags(strs(a, "nodes")) : undefined;
    const region = str(a, "region");
    if (region !== undefined) {
      opts.region = region;
      opts.nodeRegions = httpRegions(info, tags);
    }
    this.clients.set(name, { client: new Client(httpAddrs(info, tags), opts) });
    return {};
  }

  private async operation(op: string, name: string, a: Args, deadlineMs: number): Promise<unknown> {
    if (op === "open") return this.open(name, a);
    const rc = this.runClient(name);
    const c = rc.client;
    const call = { timeoutMs: deadlineMs };
    switch (op) {
      case "close":
        this.clients.delete(name);
        await this.closeClient(rc, deadlineMs);
        return {};
      case "generate": {
        const guid = str(a, "guidVersion");
        if (guid !== undefined && guid !== "v4" && guid !== "v7") throw new Error(`guidVersion ${guid}: "v4" or "v7"`);
        const ids = await c.generate(str(a, "id") ?? "", {
          ...call,
          count: num(a, "count"),
          requestId: str(a, "requestId"),
          guidVersion: guid,
          claim: a.claim === true,
          owner: str(a, "owner"),
          numeric: a.numeric === true,
        });
        return { ids };
      }
      case "nextIdentity":
        return c.nextIdentity(str(a, "name") ?? "", { ...call, count: num(a, "count"), requestId: str(a, "requestId") });
      case "seedIdentity":
        return { value: await c.seedIdentity(str(a, "name") ?? "", big(a, "value") ?? 0n, { ...call, force: a.force === true }) };
      case "listIdentities": {
        const identities = [];
        for await (const i of c.identities(str(a, "prefix") ?? "", call)) identities.push(i);
        return { identities };
      }
      case "claim":
        await c.claim(strs(a, "ids"), { ...call, owner: str(a, "owner"), requestId: str(a, "requestId") });
        return {};
      case "release":
        return { released: await c.release(strs(a, "ids"), { ...call, owner: str(a, "owner"), requestId: str(a, "requestId") }) };
      case "getClaims":
        return { claims: await c.getClaims(strs(a, "ids"), call) };
      case "nextHiLo": {
        const r = await c.nextHiLo(str(a, "tag") ?? "", { lastBatchSize: big(a, "lastBatchSize"), lastMax: big(a, "lastMax"), requestId: str(a, "requestId") }, call);
        return { prefix: r.prefix, low: r.low, high: r.high, lastSize: r.lastSize, serverTag: r.serverTag, grantId: r.grantId };
      }
      case "returnHiLo":
        return { returned: await c.returnHiLo(str(a, "tag") ?? "", { end: big(a, "end") ?? 0n, last: big(a, "last") ?? 0n, grantId: str(a, "grantId") ?? "" }, call) };
      case "seedHiLo":
        return { max: await c.seedHiLo(str(a, "tag") ?? "", big(a, "max") ?? 0n, call) };
      case "explain": {
        const e = await c.explain(str(a, "id") ?? "", call);
        return { ...e, value: e.value.toString() };
      }
      case "assignId": {
        const entity = { id: str(a, "id") ?? "" };
        const id = await c.assignId(entity, call);
        if (id !== entity.id) throw new Error(`assignId returned ${JSON.stringify(id)} but left the entity's id ${JSON.stringify(entity.id)}`);
        return { id: entity.id };
      }
      case "hiloIds": {
        const gen = c.hilo(str(a, "tag") ?? "");
        const ids: string[] = [];
        // One deadline for every ID of the step, as the call of another operation has.
        const deadline = new Deadline({ timeoutMs: deadlineMs }, deadlineMs);
        try {
          for (let i = 0; i < (num(a, "count") ?? 1); i++) ids.push(await gen.next({ signal: deadline.signal }));
        } finally {
          deadline.dispose();
        }
        return { ids };
      }
      case "hiloIdsParallel": {
        const gen = c.hilo(str(a, "tag") ?? "");
        const each = num(a, "each") ?? 1;
        const per = await Promise.all(
          Array.from({ length: num(a, "workers") ?? 1 }, async () => {
            const ids: string[] = [];
            for (let i = 0; i < each; i++) ids.push(await gen.next());
            return ids;
          }),
        );
        return { ids: per.flat() };
      }
      case "numericIds": {
        rc.numeric ??= await c.numericGenerator();
        const g = rc.numeric;
        const ids = Array.from({ length: num(a, "count") ?? 1 }, () => g.next().toString());
        return { ids, worker: g.lease.worker, epoch: g.lease.epoch };
      }
      case "opaqueForms": {
        const collection = str(a, "collection");
        const ids = strs(a, "ids").map((id) => {
          const form = collection === undefined ? opaqueNumericId(id) : opaqueId(id, collection);
          if (form === undefined) throw new Error(`${JSON.stringify(id)} is not ${collection === undefined ? "an opaque numeric ID" : `an opaque ID of ${collection}`}`);
          return form;
        });
        return { ids };
      }
      case "createSeries": {
        const period = str(a, "period") as "none" | "year" | "month" | undefined;
        const policy = str(a, "policy") as "gapless" | "gapsAllowedJournaled" | undefined;
        return c.series.create(str(a, "name") ?? "", str(a, "format") ?? "", { ...call, period, policy });
      }
      case "issue": {
        const fields = a.fields as Record<string, string> | undefined;
        return c.series.issue(str(a, "series") ?? "", { ...call, requestId: str(a, "requestId"), documentHash: str(a, "documentHash"), fields });
      }
      case "void":
        return c.series.void(str(a, "series") ?? "", big(a, "number") ?? 0n, { ...call, period: str(a, "period"), reason: str(a, "reason"), correcting: str(a, "correcting") });
      case "verifySeries":
        return c.series.verify(str(a, "series") ?? "", call);
    }
    throw new Error(`unknown operation ${JSON.stringify(op)}`);
  }
}
