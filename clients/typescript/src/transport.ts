import { Code, IdnodeError, Reason, errorOf, ClosedError, DeadlineExceededError } from "./errors.js";
import { Refusals } from "./refusals.js";
import { Exchange, FetchFunction, HttpAnswer, fetchExchange, nodeExchange } from "./exchange.js";
import { Json, JsonObject, compact, list, object, str } from "./json.js";
import { Logger } from "./log.js";
import { NodeOrder, localNodes } from "./region.js";

export type { FetchFunction } from "./exchange.js";

/**
 * The wait between two rounds of attempts of one call, a round being one attempt on each node:
 * initialMs before the second round, times multiplier for each further one, at most maxMs, each
 * spread by ±jitter so that many clients do not retry in step. maxAttempts > 0 caps the attempts
 * of one call; 0 means "until the call's deadline" (give calls a signal or timeoutMs).
 */
export interface Backoff {
  initialMs: number;
  maxMs: number;
  multiplier: number;
  jitter: number;
  maxAttempts: number;
}

/** 25 ms doubling to 1 s, ±20%, no cap on attempts: the Go client's DefaultBackoff. */
export const DEFAULT_BACKOFF: Readonly<Backoff> = Object.freeze({ initialMs: 25, maxMs: 1000, multiplier: 2, jitter: 0.2, maxAttempts: 0 });

/** One attempt on one node is bounded by this (ms) unless the client is told otherwise. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 3000;

/** The response header in which a node names the leader's gRPC address, as the HTTP gateway passes it on. */
export const LEADER_HEADER = "grpc-metadata-idnode-leader";

/** A call's deadline (ms) when neither the call nor the client names one: the other clients' 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * How long closing a client or generator may take (ms) when neither close nor the client names a
 * bound: giving numbers back is worth a short wait, not a stalled shutdown when no node answers.
 */
export const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

/** Per-call options of every network call. */
export interface CallOptions {
  /** Ends the call, retries included: AbortSignal.timeout(ms), or a controller's signal. */
  signal?: AbortSignal;
  /**
   * A deadline for the whole call in ms, retries included (with signal, whichever ends first);
   * the client's timeoutMs when not given.
   */
  timeoutMs?: number;
}

/** An HTTP request of the API, before it is sent to a node. */
export interface ApiRequest {
  method: "GET" | "POST" | "DELETE";
  path: string;
  body?: { [key: string]: Json | undefined };
  /** A body sent as it is, in place of body: a client stream's messages, one a line. */
  text?: string;
  query?: { [key: string]: string | string[] | undefined };
  /** Sent with keepalive, so a page being closed still delivers it (HiLo returns). */
  keepalive?: boolean;
  /**
   * A call that changes the cluster and is not safe to repeat (adding a node, making a key):
   * tried on another node only when the first certainly did nothing.
   */
  atMostOnce?: boolean;
  /**
   * The answer is a stream of messages (a server-streaming call), which the gateway writes one a
   * line as {"result": …}; the answer's body is then { results: [the messages] }.
   */
  stream?: boolean;
  /**
   * How long an attempt waits at least, whatever the client's attemptTimeoutMs: for a call that
   * a healthy node takes longer to answer than most (a leadership transfer waits for the
   * proposals in flight, up to 2 s, then for the election).
   */
  minAttemptMs?: number;
}

/** One HTTP request to one node, as an interceptor sees it. */
export interface IdnodeRequest {
  readonly method: "GET" | "POST" | "DELETE";
  /** The API's path, such as "/v1/identities/orders:next", without the node or the query. */
  readonly path: string;
  /** The whole URL: the node, the path and the query. */
  readonly url: string;
  /** The node's base URL, one of Client.nodes. */
  readonly node: string;
  /** The request's headers; an interceptor may add its own, such as a trace context. */
  readonly headers: Record<string, string>;
  /** The JSON body; undefined when there is none. */
  readonly body: string | undefined;
  /** Ends the request: the attempt's timeout, or the call's deadline or signal. */
  readonly signal: AbortSignal;
  /** Sent so that it outlives the page being closed (HiLo returns at the end). */
  readonly keepalive: boolean;
}

/** A node's answer to an IdnodeRequest that went well (2xx). */
export interface IdnodeResponse {
  readonly status: number;
  /** The answer's JSON; a streamed answer's messages are { results: [the messages] }. */
  readonly body: JsonObject;
  /** The leader's gRPC address as the node named it, null when it named none. */
  readonly leader: string | null;
}

/**
 * Sends one request to one node. It rejects with an IdnodeError: the node's refusal, the node
 * unreachable (UNAVAILABLE) or the attempt's timeout (DEADLINE_EXCEEDED).
 */
export type RequestHandler = (req: IdnodeRequest) => Promise<IdnodeResponse>;

/**
 * Wraps every request the client sends, as Connect-ES's interceptors do: given the next
 * handler, it returns one that may look at and add to the request, call next, and look at the
 * response or error. Each attempt of a call is a request of its own, retries and failovers
 * included, and so is each background request for a node's status.
 */
export type Interceptor = (next: RequestHandler) => RequestHandler;

/**
 * Where a call starts: any node (with a region, one of the client's region; see NodeOrder), the
 * leader if known, or one node.
 */
export type Route = "any" | "leader" | { node: number };

/** A node's answer and which node gave it. */
export interface Answer {
  body: JsonObject;
  node: number;
}


export interface TransportOptions {
  /** The deadline of a call that names none (ms). */
  timeoutMs: number;
  /** Sent as Authorization: Bearer: an API key or the cluster's admin token. */
  bearer?: string;
  database?: string;
  attemptTimeoutMs: number;
  backoff: Backoff;
  nodesInOrder: boolean;
  /** The client's region, and each node's by the address given (see localNodes). */
  region?: string;
  nodeRegions?: Readonly<Record<string, string>>;
  fetch?: FetchFunction;
  /** Told of every failover and retry round. */
  logger: Logger;
  /** Around every request, the first outermost. */
  interceptors: readonly Interceptor[];
}

/** How often the client asks the nodes which gRPC address each has, to follow leader hints. */
const ADDRESS_PROBE_INTERVAL_MS = 5000;

/**
 * How long after the client saw a node fail by itself (nodeFailed) it believes that over a hint
 * naming the node as leader. The other nodes name a leader that died until they notice and elect
 * another, within about a second on a LAN and a few with long round trips; a follower's answer in
 * that time would send the next call to the dead node first again. A leader that only timed out
 * once is named again after it, so the calls that need it take a follower's hop at most this long.
 */
const LEADER_HINT_DISTRUST_MS = 5000;

/**
 * The longest delay setTimeout holds (2^31 - 1 ms, about 24.8 days): it fires a longer one after
 * 1 ms. A deadline or wait further off ends after this long instead.
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** ms as a delay setTimeout keeps: at least 0, at most LONGEST_TIMER_MS. */
export function timerDelay(ms: number): number {
  return Math.min(Math.max(ms, 0), LONGEST_TIMER_MS);
}

/** A node's base URL from "host:port" or "http(s)://host:port". */
export function nodeURL(addr: string): string {
  const trimmed = addr.trim();
  if (trimmed === "") throw new TypeError("idnode: a node address is empty; give host:port or http(s)://host:port");
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TypeError(`idnode: node address ${JSON.stringify(addr)} is not host:port or http(s)://host:port`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search !== "" || url.hash !== "") {
    throw new TypeError(`idnode: node address ${JSON.stringify(addr)} must be http:// or https:// with no query`);
  }
  return url.origin + url.pathname.replace(/\/+$/, "");
}

/** The deadline (ms) of a call: its timeoutMs, else defaultMs; refused unless positive. */
export function timeoutOf(opts: CallOptions | undefined, defaultMs: number): number {
  const ms = opts?.timeoutMs ?? defaultMs;
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`idnode: timeoutMs must be a positive number of milliseconds (got ${ms})`);
  return ms;
}

/**
 * The error of a call its caller ended (see Refusals.ended): DEADLINE_EXCEEDED when its timeoutMs
 * passed or its signal was AbortSignal.timeout's, CANCELLED when the signal was aborted, with
 * the most telling refusal of refusals inside when an attempt failed.
 */
export function endedError(timedOut: boolean, reason: unknown, refusals: Refusals = new Refusals()): IdnodeError {
  return refusals.ended(timedOut || (reason instanceof Error && reason.name === "TimeoutError"), reason);
}

/**
 * The deadline of one call: the caller's signal and timeoutMs joined into one signal that every
 * attempt and every backoff sleep follows.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unlink: () => void;
  timedOut = false;

  /** A call's deadline: its signal, and its timeoutMs or else defaultTimeoutMs. */
  constructor(opts: CallOptions | undefined, defaultTimeoutMs: number) {
    const ms = timeoutOf(opts, defaultTimeoutMs);
    const outer = opts?.signal;
    const onAbort = (): void => this.controller.abort(outer?.reason);
    if (outer !== undefined) {
      if (outer.aborted) onAbort();
      else outer.addEventListener("abort", onAbort, { once: true });
    }
    this.unlink = () => outer?.removeEventListener("abort", onAbort);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      // A TimeoutError, as AbortSignal.timeout's: a call given this signal (close passes its
      // bound on to the returns it makes) ends with DEADLINE_EXCEEDED, not CANCELLED.
      this.controller.abort(new DOMException(`the deadline of ${ms} ms passed`, "TimeoutError"));
    }, timerDelay(ms));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** The error of a call whose deadline ended, after the attempts that refusals holds. */
  error(refusals?: Refusals): IdnodeError {
    return endedError(this.timedOut, this.controller.signal.reason, refusals);
  }

  /** Waits for done to settle, or less when the deadline ends first; reports whether done came first. */
  within(done: Promise<unknown>): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.aborted) return resolve(false);
      const ended = (): void => resolve(false);
      const settled = (): void => {
        this.signal.removeEventListener("abort", ended);
        resolve(true);
      };
      this.signal.addEventListener("abort", ended, { once: true });
      done.then(settled, settled);
    });
  }

  /** Waits ms, or less when the deadline ends first; reports whether the whole wait passed. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.aborted) return resolve(false);
      const done = (): void => {
        clearTimeout(t);
        this.signal.removeEventListener("abort", done);
        resolve(!this.aborted);
      };
      const t = setTimeout(done, timerDelay(ms));
      this.signal.addEventListener("abort", done, { once: true });
    });
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.unlink();
  }
}

/** The HTTP status a gRPC code gets from the gateway, read the other way for answers that are not a Status. */
function codeOfHttpStatus(status: number): number {
  switch (status) {
    case 400:
      return Code.INVALID_ARGUMENT;
    case 401:
      return Code.UNAUTHENTICATED;
    case 403:
      return Code.PERMISSION_DENIED;
    case 404:
      return Code.NOT_FOUND;
    case 405:
    case 501:
      return Code.UNIMPLEMENTED;
    case 409:
      return Code.ALREADY_EXISTS;
    case 412:
      return Code.FAILED_PRECONDITION;
    case 413:
    case 429:
      return Code.RESOURCE_EXHAUSTED;
    case 499:
      return Code.CANCELLED;
    case 502:
    case 503:
      return Code.UNAVAILABLE;
    case 504:
      return Code.DEADLINE_EXCEEDED;
  }
  return status >= 500 ? Code.INTERNAL : Code.UNKNOWN;
}

/** The ErrorInfo domain of idnode's reasons, as in the other clients. */
const REASON_DOMAIN = "idnode.dev";

/** The error of a refusal: the google.rpc.Status the gateway writes, with its ErrorInfo. */
export function errorOfAnswer(status: number, text: string, node: string): IdnodeError {
  let parsed: JsonObject | undefined;
  try {
    parsed = object(JSON.parse(text) as Json);
  } catch {
    parsed = undefined;
  }
  const code = parsed !== undefined && typeof parsed.code === "number" ? parsed.code : codeOfHttpStatus(status);
  const message = parsed !== undefined ? str(parsed, "message") : text.trim();
  let reason = "";
  let metadata: Record<string, string> = {};
  for (const d of parsed !== undefined ? list(parsed, "details") : []) {
    const detail = object(d);
    // Only idnode's domain carries its reasons; another's (a proxy's) is no idnode reason.
    if (str(detail, "@type").endsWith("google.rpc.ErrorInfo") && str(detail, "domain") === REASON_DOMAIN) {
      reason = str(detail, "reason");
      const md = object(detail.metadata);
      metadata = Object.fromEntries(Object.entries(md).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
    }
  }
  return errorOf(code, `idnode: ${node}: ${message || `HTTP ${status}`}`, { reason, metadata, httpStatus: status, node });
}

/** The messages of a streamed answer; an error the stream ended with is thrown. */
function streamBody(text: string, node: string): JsonObject {
  const results: Json[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const msg = object(JSON.parse(line) as Json);
    if (msg.error !== undefined) throw errorOfAnswer(200, JSON.stringify(msg.error), node);
    results.push(object(msg.result));
  }
  return { results };
}

function retryable(err: IdnodeError): boolean {
  return err.retryable || err.code === Code.DEADLINE_EXCEEDED;
}

/**
 * Whether the node certainly did not carry out the request: it refused the connection, or
 * answered NO_QUORUM, which idnode sends only for a call it did not carry out. A lost answer or
 * an attempt's timeout says nothing of what happened.
 */
function didNothing(err: IdnodeError): boolean {
  if (err.reason === Reason.NO_QUORUM) return true;
  // node:http fails with the socket's error; Node's fetch with a TypeError whose cause it is.
  const failed = err.cause as { code?: unknown; cause?: { code?: unknown } } | undefined;
  return failed?.code === "ECONNREFUSED" || failed?.cause?.code === "ECONNREFUSED";
}

/**
 * The refusals about the node that sent them, not the cluster: it is busy, stopping, behind,
 * fenced, or cannot write its own storage, and another node may serve the call now.
 */
const aboutTheNode: ReadonlySet<string> = new Set([
  Reason.NODE_BUSY, Reason.SHUTTING_DOWN, Reason.NOT_CAUGHT_UP, Reason.STORAGE_FULL, Reason.STORAGE_FAILED, Reason.NOT_REGISTERED,
  Reason.REPLICA_DIVERGED,
]);

/**
 * Whether a failed attempt was the node's own failure, which puts it behind the others for a while
 * (NodeOrder.failed): no idnode reason (the node unreachable, or the attempt's timeout passed), or
 * a refusal about the node alone (aboutTheNode). A refusal with another reason (NO_QUORUM,
 * OUTCOME_UNKNOWN …) is about the cluster, which every node shares: putting a healthy local node
 * behind remote ones for it would keep calls in other regions long after the cluster recovered.
 */
function nodeFailed(err: IdnodeError): boolean {
  return err.reason === "" || aboutTheNode.has(err.reason);
}

/**
 * The client's way to the nodes: failover across them with backoff and jitter, the leader hint,
 * per-attempt timeouts, credentials and database on every request.
 */
export class Transport {
  readonly nodes: readonly string[];
  private readonly opts: TransportOptions;
  private readonly exchange: Exchange;
  private readonly headers: Record<string, string>;
  /** Where each call starts and where it goes next. */
  private readonly order: NodeOrder;
  /** Whether the client has a region: calls any node answers then stay in it. */
  readonly regional: boolean;
  /** The node last named as leader, -1 when unknown. */
  private leader = -1;
  /** By node, when it last failed an attempt by itself (Date.now ms), 0 once it answers. */
  private readonly failedAt: number[];
  /** Each node's gRPC address, as its /v1/status says, to find the node a leader hint names. */
  private readonly grpcAddrs: (string | undefined)[];
  private probedAt = -Infinity;
  closed = false;

  constructor(nodes: readonly string[], opts: TransportOptions) {
    if (nodes.length === 0) throw new TypeError("idnode: give at least one node address");
    this.nodes = nodes.map(nodeURL);
    this.opts = opts;
    const exchange = opts.fetch !== undefined ? fetchExchange(opts.fetch, LEADER_HEADER) : nodeExchange(LEADER_HEADER);
    if (exchange !== undefined) {
      this.exchange = exchange;
    } else {
      if (typeof globalThis.fetch !== "function") throw new TypeError("idnode: this runtime has no fetch; pass one in the fetch option");
      // Called unbound, browsers' fetch throws "Illegal invocation".
      this.exchange = fetchExchange((input, init) => globalThis.fetch(input, init), LEADER_HEADER);
    }
    this.headers = compact({
      authorization: opts.bearer !== undefined ? `Bearer ${opts.bearer}` : undefined,
      "idnode-database": opts.database,
    }) as Record<string, string>;
    this.grpcAddrs = this.nodes.map(() => undefined);
    this.failedAt = this.nodes.map(() => 0);
    const local = localNodes(this.nodes, opts.region, opts.nodeRegions, nodeURL);
    this.regional = local !== undefined;
    this.order = new NodeOrder(this.nodes.length, local, opts.nodesInOrder);
  }

  /**
   * Sends req until a node answers it, following route; see Backoff for the retries. The
   * attempts that fail are added to refusals, whose most telling one the call's error carries
   * when no node answers (a folded identity call passes its batch's, for callers that leave it).
   */
  async call(req: ApiRequest, route: Route, opts?: CallOptions, refusals = new Refusals()): Promise<Answer> {
    if (this.closed) throw new ClosedError("client");
    const deadline = new Deadline(opts, this.opts.timeoutMs);
    try {
      const n = this.nodes.length;
      const first = typeof route === "object" ? route.node : route === "leader" && this.leader >= 0 ? this.leader : undefined;
      const plan = this.order.plan(first);
      let last: IdnodeError | undefined;
      for (let i = 0; ; i++) {
        const idx = plan[i % n] as number;
        if (i > 0 && last !== undefined) {
          const max = this.opts.backoff.maxAttempts;
          if (max > 0 && i >= max) throw refusals.exhausted(n);
          const fields = { method: req.method, path: req.path, from: last.node, to: this.nodes[idx], code: last.codeName, reason: last.reason || undefined, attempt: i + 1 };
          if (i % n === 0) {
            // Back off only once every node failed: a dead node refuses at once and says nothing
            // about the others.
            const ms = this.delay(i / n);
            this.opts.logger.warn(`idnode: ${req.method} ${req.path}: every node failed; round ${i / n + 1} starts at ${fields.to} in ${Math.round(ms)} ms; last error: ${last.message}`, { ...fields, round: i / n + 1, backoffMs: Math.round(ms) });
            if (!(await deadline.sleep(ms))) throw deadline.error(refusals);
          } else {
            this.opts.logger.warn(`idnode: ${req.method} ${req.path}: failing over from ${fields.from} to ${fields.to}: ${last.message}`, fields);
          }
        }
        try {
          const body = await this.attempt(idx, req, deadline.signal);
          this.failedAt[idx] = 0;
          this.order.answered(idx, first);
          return { body, node: idx };
        } catch (e) {
          if (deadline.aborted) throw deadline.error(refusals);
          if (!(e instanceof IdnodeError) || !retryable(e) || (req.atMostOnce === true && !didNothing(e))) throw e;
          refusals.add(e);
          if (nodeFailed(e)) {
            this.order.failed(idx);
            this.failedAt[idx] = Date.now();
            if (this.leader === idx) this.leader = -1;
          }
          last = e;
        }
      }
    } finally {
      deadline.dispose();
    }
  }

  /** The wait before round (1-based) of a call's retries. */
  private delay(round: number): number {
    const b = this.opts.backoff;
    const base = Math.min(b.maxMs, b.initialMs * Math.pow(b.multiplier, round - 1));
    return base * (1 + b.jitter * (2 * Math.random() - 1));
  }

  /** One request to node idx, bounded by the attempt timeout and the call's signal. */
  private async attempt(idx: number, req: ApiRequest, callSignal: AbortSignal): Promise<JsonObject> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(callSignal.reason);
    callSignal.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timeoutMs = this.opts.attemptTimeoutMs > 0 ? Math.max(this.opts.attemptTimeoutMs, req.minAttemptMs ?? 0) : 0;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timerDelay(timeoutMs))
        : undefined;
    try {
      const deliver: RequestHandler = (r) => this.deliver(r, req.stream === true, () => timedOut, timeoutMs);
      const send = this.opts.interceptors.reduceRight<RequestHandler>((next, intercept) => intercept(next), deliver);
      return (await send(this.request(this.nodes[idx] ?? "", req, controller.signal))).body;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      callSignal.removeEventListener("abort", onAbort);
    }
  }

  /** Sends r over the exchange and reads the answer: the innermost RequestHandler. */
  private async deliver(r: IdnodeRequest, stream: boolean, timedOut: () => boolean, timeoutMs: number): Promise<IdnodeResponse> {
    const node = r.node;
    let answer: HttpAnswer;
    try {
      answer = await this.exchange(r.url, { method: r.method, headers: r.headers, body: r.body, signal: r.signal, keepalive: r.keepalive });
    } catch (e) {
      if (timedOut()) {
        throw new DeadlineExceededError(Code.DEADLINE_EXCEEDED, `idnode: ${node}: no answer within ${timeoutMs} ms; trying another node`, { node, cause: e });
      }
      const message = e instanceof Error ? e.message : String(e);
      throw errorOf(Code.UNAVAILABLE, `idnode: ${node} unreachable (${message}); is the node up, is this its HTTP address (--http-addr), and in a browser, is the page's origin in its --http-allowed-origins?`, { node, cause: e });
    }
    const { status, text, leader } = answer;
    this.learnLeader(leader);
    if (status < 200 || status > 299) throw errorOfAnswer(status, text, node);
    try {
      return { status, body: stream ? streamBody(text, node) : object(JSON.parse(text) as Json), leader };
    } catch (e) {
      throw errorOf(Code.INTERNAL, `idnode: ${node} answered ${r.method} ${r.path} with a body that is not JSON: ${text.slice(0, 200)}`, {
        node,
        httpStatus: status,
        cause: e,
      });
    }
  }

  private url(node: string, req: ApiRequest): string {
    let url = node + req.path;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
    }
    const q = params.toString();
    if (q !== "") url += `?${q}`;
    return url;
  }

  /** req as a request to node, with headers of its own that an interceptor may add to. */
  private request(node: string, req: ApiRequest, signal: AbortSignal): IdnodeRequest {
    const body = req.text ?? (req.body === undefined ? undefined : JSON.stringify(compact(req.body)));
    const headers = body === undefined ? { ...this.headers } : { ...this.headers, "content-type": "application/json" };
    return { method: req.method, path: req.path, url: this.url(node, req), node, headers, body, signal, keepalive: req.keepalive === true };
  }

  /**
   * Follows a leader hint (the leader's gRPC address). The nodes were given by their HTTP
   * addresses, so the client learns each one's gRPC address from its /v1/status, in the
   * background and at most every few seconds; until then calls go where they would anyway.
   */
  private learnLeader(grpcAddr: string | null): void {
    if (grpcAddr === null || grpcAddr === "") return;
    const idx = this.grpcAddrs.indexOf(grpcAddr);
    if (idx >= 0) {
      this.follow(idx);
      return;
    }
    const now = Date.now();
    if (now - this.probedAt < ADDRESS_PROBE_INTERVAL_MS || this.closed) return;
    this.probedAt = now;
    this.nodes.forEach((_, i) => {
      if (this.grpcAddrs[i] !== undefined) return;
      this.attempt(i, { method: "GET", path: "/v1/status" }, new AbortController().signal).then(
        (status) => {
          const self = str(status, "self");
          for (const m of list(status, "nodes")) {
            const member = object(m);
            if (str(member, "tag") === self) this.grpcAddrs[i] = str(member, "grpcAddress");
          }
          if (this.grpcAddrs[i] === grpcAddr) this.follow(i);
        },
        () => undefined, // a node that is down now is asked again at the next unknown hint
      );
    });
  }

  /**
   * Takes node idx as the leader a hint named, unless the client saw it fail by itself within
   * LEADER_HINT_DISTRUST_MS: its own observation is newer than what a follower still believes.
   */
  private follow(idx: number): void {
    const failed = this.failedAt[idx] ?? 0;
    if (failed !== 0 && Date.now() - failed < LEADER_HINT_DISTRUST_MS) return;
    this.leader = idx;
  }
}
