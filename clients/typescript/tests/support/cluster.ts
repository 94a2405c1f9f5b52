import { execFileSync, spawn, ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface ClusterNode {
  tag: string;
  grpc: string;
  http: string;
  raft: string;
  /** The node's --region; absent when it has none. */
  region?: string;
}

export interface ClusterInfo {
  nodes: ClusterNode[];
  leader: string;
  keys: Record<string, string>;
}

export interface Topology {
  nodes?: number;
  hiloPools?: boolean;
  tls?: "none" | "server" | "mutual";
  httpAllowedOrigins?: string[];
  adminToken?: string;
  databases?: string[];
  keys?: Record<string, { database: string; role: string }>;
  /** Each named node's --region, by tag. */
  regions?: Record<string, string>;
}

/** Where idcluster's private PostgreSQL server serves (test/conformance/README.md, "postgres"). */
export interface PostgresInfo {
  dsn: string;
  addr: string;
  user: string;
  database: string;
}

export type Answer = { ok: boolean; error?: string; [key: string]: unknown };

/** The repository's root: the first folder above this file whose go.mod is the idnode module. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const mod = join(dir, "go.mod");
    if (existsSync(mod) && readFileSync(mod, "utf8").startsWith("module github.com/idnode/idnode\n")) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("no idnode module root above the tests: run them from the repository");
    dir = parent;
  }
}

let built: { idnode: string; idcluster: string } | undefined;

/** IDNODE_BIN and IDNODE_CLUSTER_BIN, or both built with go build into a temp dir. */
export function binaries(): { idnode: string; idcluster: string } {
  if (built !== undefined) return built;
  let idnode = process.env.IDNODE_BIN;
  let idcluster = process.env.IDNODE_CLUSTER_BIN;
  if (idnode === undefined || idcluster === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "idnode-ts-bin-"));
    const root = repoRoot();
    for (const [name, pkg] of [["idnode", "./cmd/idnode"], ["idcluster", "./test/conformance/idcluster"]] as const) {
      execFileSync("go", ["build", "-o", join(dir, name), pkg], { cwd: root, stdio: "inherit", timeout: 180_000 });
    }
    idnode ??= join(dir, "idnode");
    idcluster ??= join(dir, "idcluster");
  }
  built = { idnode, idcluster };
  return built;
}

/** The scenarios folder: IDNODE_CONFORMANCE_DIR, or the repository's test/conformance/scenarios. */
export function scenariosDir(): string {
  return process.env.IDNODE_CONFORMANCE_DIR ?? resolve(repoRoot(), "test", "conformance", "scenarios");
}

/**
 * The control program idcluster (test/conformance/README.md): one JSON request per line in, one
 * answer per line out, in order. Closing its input tears the cluster down.
 */
export class IdCluster {
  private readonly proc: ChildProcess;
  private buffer = "";
  private readonly waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void }[] = [];
  private exited: Promise<void>;
  private stderrTail = "";

  constructor() {
    const bins = binaries();
    this.proc = spawn(bins.idcluster, ["--idnode", bins.idnode], { stdio: ["pipe", "pipe", "pipe"] });
    this.proc.stdout?.setEncoding("utf8");
    this.proc.stdout?.on("data", (chunk) => this.read(String(chunk)));
    this.proc.stderr?.setEncoding("utf8");
    this.proc.stderr?.on("data", (chunk) => {
      this.stderrTail = (this.stderrTail + String(chunk)).slice(-4000);
    });
    // "close", not "exit": an answer idcluster wrote just before it exited may still be unread
    // at "exit", and its waiter would be told it exited instead.
    this.exited = new Promise((resolve) => {
      this.proc.on("close", () => {
        for (const w of this.waiting.splice(0)) w.reject(new Error(`idcluster exited; its log ends:\n${this.stderrTail}`));
        resolve();
      });
    });
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf("\n"); nl >= 0; nl = this.buffer.indexOf("\n")) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const w = this.waiting.shift();
      if (w === undefined) continue;
      try {
        w.resolve(JSON.parse(line) as Answer);
      } catch {
        w.reject(new Error(`idcluster wrote a line that is not JSON: ${line}`));
      }
    }
  }

  /** Sends one request and returns its answer, ok or not. */
  send(req: Record<string, unknown>): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.proc.stdin?.write(JSON.stringify(req) + "\n");
    });
  }

  /** Sends one request and returns its answer; a refusal is thrown. */
  async must(req: Record<string, unknown>): Promise<Answer> {
    const a = await this.send(req);
    if (!a.ok) throw new Error(`idcluster ${JSON.stringify(req)}: ${a.error ?? "refused"}`);
    return a;
  }

  async start(topology: Topology): Promise<ClusterInfo> {
    const a = await this.must({ cmd: "start", topology });
    return a.cluster as ClusterInfo;
  }

  /** kill, pause, resume, stop, restart or leader of the nodes sel selects; the tags acted on. */
  async fault(cmd: string, node?: string): Promise<string[]> {
    const a = await this.must(node === undefined ? { cmd } : { cmd, node });
    return (a.nodes as string[] | undefined) ?? [];
  }

  async leader(): Promise<string> {
    return (await this.must({ cmd: "leader" })).leader as string;
  }

  /**
   * The private PostgreSQL server idcluster starts on the first call (stopped at teardown), or
   * the reason there is none when PostgreSQL is not installed; any other refusal is thrown.
   */
  async postgres(): Promise<PostgresInfo | { missing: string }> {
    const a = await this.send({ cmd: "postgres" });
    if (a.ok) return a.postgres as PostgresInfo;
    const why = a.error ?? "refused";
    if (why.includes("PostgreSQL is not installed") || why.includes("no postgres user")) return { missing: why };
    throw new Error(`idcluster postgres: ${why}`);
  }

  async teardown(): Promise<void> {
    await this.must({ cmd: "teardown" });
  }

  /** Ends the program (it kills its nodes and removes their data) and waits for it. */
  async close(): Promise<void> {
    this.proc.stdin?.end();
    await this.exited;
  }
}

/** The HTTP addresses of a cluster's nodes, for a Client: of tags in their order, or of every node. */
export function httpAddrs(c: ClusterInfo, tags?: readonly string[]): string[] {
  if (tags === undefined) return c.nodes.map((n) => n.http);
  return tags.map((tag) => {
    const node = c.nodes.find((n) => n.tag === tag);
    if (node === undefined) throw new Error(`the cluster has no node ${JSON.stringify(tag)}`);
    return node.http;
  });
}

/** The region of each of a cluster's nodes that has one, by its HTTP address: a Client's nodeRegions. */
export function httpRegions(c: ClusterInfo, tags?: readonly string[]): Record<string, string> {
  const regions: Record<string, string> = {};
  for (const n of c.nodes) {
    if (n.region !== undefined && n.region !== "" && (tags === undefined || tags.includes(n.tag))) regions[n.http] = n.region;
  }
  return regions;
}
