import { JsonObject, big, bool, list, num, object, str, whole } from "./json.js";
import { Caller, seg } from "./caller.js";
import { KeyStatus, keyStatus } from "./databases.js";
import { RestoreOptions, RestoreResult, askedMargin, marginJson, restoreResult } from "./restore.js";
import { CallOptions, Route } from "./transport.js";

/** A node as the answering node sees it. */
export interface NodeStatus {
  tag: string;
  id: string;
  raftAddress: string;
  grpcAddress: string;
  voter: boolean;
  /** Its Raft state: "leader", "follower", "candidate", … */
  state: string;
  reachable: boolean;
  version: string;
  joinUnfinished: boolean;
  appliedIndex: bigint;
  commitIndex: bigint;
  storageFault: string;
  supportedVersion: number;
  /** Its wall clock minus the leader's, in seconds, as it last measured it; a measurement only when clockOffsetMeasured. */
  clockOffsetSeconds: number;
  clockOffsetMeasured: boolean;
}

/** A member's build and the cluster version it supports. */
export interface MemberVersion {
  tag: string;
  version: number;
  build: string;
  voter: boolean;
}

/** The cluster version: finalised, in effect, the lowest a downgrade may go to, and each member's. */
export interface ClusterVersion {
  finalised: number;
  effective: number;
  downgradeFloor: number;
  supported: number;
  members: MemberVersion[];
}

export interface LeaderChange {
  atMs: bigint;
  leader: string;
  term: bigint;
}

/** The cluster as the answering node sees it (GET /v1/status). */
export interface ClusterStatus {
  /** The leader's tag; "" when there is none. */
  leader: string;
  term: bigint;
  commitIndex: bigint;
  appliedIndex: bigint;
  nodes: NodeStatus[];
  /** The answering node's tag. */
  self: string;
  storageFault: string;
  leaderChanges: LeaderChange[];
  /** Values handed out, by kind. */
  issued: Record<string, bigint>;
  clusterVersion: ClusterVersion;
}

/** A backup of the cluster's replicated state, as restore() takes it. */
export interface Backup {
  /** The backup file's bytes. */
  data: Uint8Array;
  /** The leader that took it, and the Raft index it covers. */
  leader: string;
  index: bigint;
}

/** A node to add to the cluster (addNode). */
export interface NewNode {
  /** Where the other nodes reach its Raft transport (idnode --raft-addr). */
  raftAddress: string;
  /** Where clients and nodes reach its gRPC API (idnode --grpc-addr). */
  grpcAddress: string;
  /** Its tag; the cluster gives the next free one when absent. */
  tag?: string;
  /** Its Raft server ID; its tag when absent. */
  id?: string;
  /** Added as a non-voter, which replicates the log but does not count towards a quorum. */
  nonVoter?: boolean;
}

/** The bytes restore() sends a message: well under a node's largest HTTP body (4 MiB by default) once in base64. */
const RESTORE_CHUNK = 256 * 1024;

/**
 * How long an attempt of transferLeadership waits at least: the node waits up to 2 s for the
 * proposals in flight, then for the election, which on a busy machine outlasts the client's
 * attempt timeout (3 s by default). Its answer lost, the call cannot be sent again, since a
 * second transfer would move the leadership once more.
 */
const transferAttemptMs = 15_000;

function base64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

function unbase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** What a node makes of the client's credentials. */
export interface WhoAmI {
  /** By what right the client may make admin calls ("" when it may not). */
  admin: string;
  keysRequired: boolean;
  /** The API key the client sent, if any. */
  key: KeyStatus | undefined;
}

function clusterVersion(o: JsonObject): ClusterVersion {
  return {
    finalised: num(o, "finalised"),
    effective: num(o, "effective"),
    downgradeFloor: num(o, "downgradeFloor"),
    supported: num(o, "supported"),
    members: list(o, "members").map((m) => {
      const v = object(m);
      return { tag: str(v, "tag"), version: num(v, "version"), build: str(v, "build"), voter: bool(v, "voter") };
    }),
  };
}

function nodeStatus(o: JsonObject): NodeStatus {
  return {
    tag: str(o, "tag"),
    id: str(o, "id"),
    raftAddress: str(o, "raftAddress"),
    grpcAddress: str(o, "grpcAddress"),
    voter: bool(o, "voter"),
    state: str(o, "state"),
    reachable: bool(o, "reachable"),
    version: str(o, "version"),
    joinUnfinished: bool(o, "joinUnfinished"),
    appliedIndex: big(o, "appliedIndex"),
    commitIndex: big(o, "commitIndex"),
    storageFault: str(o, "storageFault"),
    supportedVersion: num(o, "supportedVersion"),
    clockOffsetSeconds: num(o, "clockOffsetSeconds"),
    clockOffsetMeasured: bool(o, "clockOffsetMeasured"),
  };
}

/**
 * The calls that run the cluster: its status, members, leadership, backups, cluster version,
 * and the release of a gone owner's claims: client.admin. Named for who asks (an operator or a
 * tool) rather than for the admin token: status, whoAmI and clusterVersion need none.
 */
export class AdminCalls {
  /** @internal */
  constructor(
    private readonly call: Caller,
    /** Whether the client has a region, so a consistent status goes to the leader. */
    private readonly regional: boolean,
  ) {}

  /**
   * The cluster as the node that answers sees it; consistent has the leader confirm its
   * leadership with a quorum first, so a client with a region sends that to the leader.
   */
  async status(opts: CallOptions & { consistent?: boolean } = {}): Promise<ClusterStatus> {
    const consistent = opts.consistent === true;
    const route: Route = consistent && this.regional ? "leader" : "any";
    const r = await this.call({ method: "GET", path: "/v1/status", query: { consistent: consistent ? "true" : undefined } }, route, opts);
    const issued = object(r.issued);
    return {
      leader: str(r, "leader"),
      term: big(r, "term"),
      commitIndex: big(r, "commitIndex"),
      appliedIndex: big(r, "appliedIndex"),
      nodes: list(r, "nodes").map((n) => nodeStatus(object(n))),
      self: str(r, "self"),
      storageFault: str(r, "storageFault"),
      leaderChanges: list(r, "leaderChanges").map((c) => ({ atMs: big(object(c), "atMs"), leader: str(object(c), "leader"), term: big(object(c), "term") })),
      issued: Object.fromEntries(Object.keys(issued).map((k) => [k, big(issued, k)])),
      clusterVersion: clusterVersion(object(r.clusterVersion)),
    };
  }

  /** What the node makes of this client's credentials: whether it may make admin calls, and its API key. */
  async whoAmI(opts: CallOptions = {}): Promise<WhoAmI> {
    const r = await this.call({ method: "GET", path: "/v1/whoami" }, "any", opts);
    const key = keyStatus(object(r.key));
    return { admin: str(r, "admin"), keysRequired: bool(r, "keysRequired"), key: key.id === "" ? undefined : key };
  }

  /** The cluster version, from the leader. */
  async clusterVersion(opts: CallOptions = {}): Promise<ClusterVersion> {
    return clusterVersion(await this.call({ method: "GET", path: "/v1/cluster/version" }, "leader", opts));
  }

  /** Finalises a higher cluster version or lowers it (an admin call); setting it twice changes nothing. */
  async setClusterVersion(version: number, opts: CallOptions = {}): Promise<ClusterVersion> {
    const body = { version: whole("version", version, 1, 0xffffffff) };
    return clusterVersion(await this.call({ method: "POST", path: "/v1/cluster/version", body }, "leader", opts));
  }

  /*
   * The admin calls below change the cluster and are not simply repeatable (a repeated
   * createKey makes a second key, a repeated transferLeadership moves the leadership again), so
   * each goes to another node only when the first certainly did nothing: it refused the
   * connection or answered NO_QUORUM. After any other failure, see status() before trying again.
   */

  /** Releases every ID owner claimed in the client's database; returns how many were released. */
  async releaseOwner(owner: string, opts: CallOptions = {}): Promise<bigint> {
    return big(await this.call({ method: "POST", path: "/v1/claims:releaseOwner", body: { owner } }, "leader", opts), "released");
  }

  /**
   * A consistent backup of the cluster's replicated state (an admin call); database names one
   * database to back up alone. The attempt's timeout bounds the whole transfer from one node.
   */
  async backup(opts: CallOptions & { database?: string } = {}): Promise<Backup> {
    const r = await this.call({ method: "GET", path: "/v1/backup", query: { database: opts.database }, stream: true }, "leader", opts);
    const chunks = list(r, "results").map((c) => object(c));
    const parts = chunks.map((c) => unbase64(str(c, "data")));
    const data = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      data.set(p, at);
      at += p.length;
    }
    const first = chunks[0] ?? {};
    return { data, leader: str(first, "leader"), index: big(first, "index") };
  }

  /**
   * Raises the cluster's counters to at least a backup's (plus the margin `ahead`, to skip what
   * the backup's cluster issued after it was taken) and retires its node tags (an admin call).
   * It never lowers anything, so running it again is safe. A margin the answer does not echo is
   * MarginNotAppliedError, which carries the answer. Over HTTP the backup must fit the node's
   * largest body (--http-max-body, 4 MiB by default) in base64.
   */
  async restore(backup: Uint8Array, opts: RestoreOptions = {}): Promise<RestoreResult> {
    const asked = askedMargin(opts.ahead);
    const lines: string[] = [];
    for (let i = 0; i < backup.length || i === 0; i += RESTORE_CHUNK) {
      const chunk: JsonObject = { data: base64(backup.subarray(i, i + RESTORE_CHUNK)) };
      // The first chunk carries the margin; without one the request is what a build without margins sends.
      if (i === 0 && asked !== undefined) chunk.ahead = marginJson(asked);
      lines.push(JSON.stringify(chunk));
    }
    const r = await this.call({ method: "POST", path: "/v1/restore", text: lines.join("\n") }, "leader", opts);
    return restoreResult(r, asked);
  }

  /**
   * Registers a node and makes it a Raft member; returns it as registered, its tag included (an
   * admin call). Added again with the same tag and id, it only has its addresses refreshed.
   * Tried on another node only when the first certainly did nothing: without a tag, a repeat
   * would add a second member.
   */
  async addNode(node: NewNode, opts: CallOptions = {}): Promise<NodeStatus> {
    const body = { tag: node.tag, raftAddress: node.raftAddress, grpcAddress: node.grpcAddress, id: node.id, nonVoter: node.nonVoter };
    const r = await this.call({ method: "POST", path: "/v1/nodes", body, atMostOnce: true }, "leader", opts);
    return nodeStatus(object(r.node));
  }

  /** Takes the node with tag out of the cluster and retires the tag for ever (an admin call). */
  async removeNode(tag: string, opts: CallOptions = {}): Promise<void> {
    await this.call({ method: "DELETE", path: `/v1/nodes/${seg("node tag", tag)}`, atMostOnce: true }, "leader", opts);
  }

  /** Hands the leadership to the node with tag, or to any up-to-date voter without one; returns the new leader's tag (an admin call). */
  async transferLeadership(tag = "", opts: CallOptions = {}): Promise<string> {
    const r = await this.call(
      { method: "POST", path: "/v1/leader:transfer", body: { tag: tag === "" ? undefined : tag }, atMostOnce: true, minAttemptMs: transferAttemptMs },
      "leader",
      opts,
    );
    return str(r, "leader");
  }
}
