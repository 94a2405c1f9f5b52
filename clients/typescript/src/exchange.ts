/**
 * One HTTP exchange with a node: the request out, the whole answer in. The platform's fetch
 * does it everywhere; on Node, node:http does it with less work a request, which the folded
 * identities' rate is bound by (see the README's benchmark section).
 */

/** A node's answer: its status, the leader it named and its body. */
export interface HttpAnswer {
  status: number;
  /** The leader header's value, null when absent. */
  leader: string | null;
  text: string;
}

/** What an exchange sends. */
export interface HttpRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Sent with keepalive, so a page being closed still delivers it. */
  keepalive?: boolean;
}

export type Exchange = (url: string, req: HttpRequest) => Promise<HttpAnswer>;

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** An exchange through fetch; leaderHeader names the header whose value is the leader. */
export function fetchExchange(fetchFn: FetchFunction, leaderHeader: string): Exchange {
  return async (url, req) => {
    const init: RequestInit = { method: req.method, headers: req.headers, signal: req.signal };
    if (req.body !== undefined) init.body = req.body;
    if (req.keepalive === true) init.keepalive = true;
    const resp = await fetchFn(url, init);
    const text = await resp.text();
    return { status: resp.status, leader: resp.headers.get(leaderHeader), text };
  };
}

// The little of node:http and node:https the exchange uses; the package has no Node types.
interface NodeIncoming {
  statusCode?: number;
  complete: boolean;
  headers: Record<string, string | string[] | undefined>;
  setEncoding(enc: string): void;
  on(event: "data", fn: (chunk: string) => void): void;
  on(event: "end" | "close", fn: () => void): void;
  on(event: "error", fn: (err: Error) => void): void;
}

interface NodeClientRequest {
  on(event: "error", fn: (err: Error) => void): void;
  end(body?: string): void;
}

interface NodeHttp {
  Agent: new (opts: { keepAlive: boolean; timeout: number }) => object;
  request(url: string, opts: { method: string; headers: Record<string, string>; agent: object; signal: AbortSignal }, onResponse: (res: NodeIncoming) => void): NodeClientRequest;
}

const utf8 = new TextEncoder();

/** How long a connection the pool holds idle stays open (ms). */
const IDLE_MS = 4000;

interface NodeProcess {
  versions?: { node?: string; bun?: string };
  getBuiltinModule?: (id: string) => unknown;
}

/**
 * An exchange through node:http and node:https, each with a keep-alive pool of its own, where
 * the runtime is Node and offers process.getBuiltinModule (20.16 and later; not Deno or Bun,
 * whose fetch is their own): undefined elsewhere. Node's fetch (undici) spends more on each
 * request than node:http does (web streams, a Request and a Response object), and folded
 * identities are a stream of small requests.
 */
export function nodeExchange(leaderHeader: string): Exchange | undefined {
  const g = globalThis as { process?: NodeProcess; Deno?: unknown };
  const proc = g.process;
  if (proc?.versions?.node === undefined || proc.versions.bun !== undefined || g.Deno !== undefined || typeof proc.getBuiltinModule !== "function") return undefined;
  const http = proc.getBuiltinModule("node:http") as NodeHttp;
  const https = proc.getBuiltinModule("node:https") as NodeHttp;
  // An idle connection is closed after IDLE_MS, as undici's are, well before a node closes it
  // (--http-idle-timeout, 2 minutes): a request never races the node's close on a stale one.
  // The agent times out only the connections it holds idle, not those in use.
  const agentOptions = { keepAlive: true, timeout: IDLE_MS };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  return (url, req) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const secure = url.startsWith("https:");
      const headers = req.body === undefined ? req.headers : { ...req.headers, "content-length": String(utf8.encode(req.body).length) };
      const request = (secure ? https : http).request(url, { method: req.method, headers, agent: secure ? agents.https : agents.http, signal: req.signal }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => {
          const leader = res.headers[leaderHeader];
          resolve({ status: res.statusCode ?? 0, leader: typeof leader === "string" ? leader : null, text });
        });
        res.on("error", reject);
        res.on("close", () => {
          if (!res.complete) reject(new Error("the connection closed before the answer was complete"));
        });
      });
      request.on("error", reject);
      request.end(req.body);
    });
}
