import { createServer, IncomingMessage, Server, ServerResponse } from "node:http";

/** A request as a fake node saw it. */
export interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/**
 * What a fake node answers: a status, a JSON body and headers, after afterMs when given (a node
 * slow to answer); "hang" never answers.
 */
export type Reply = { status: number; body: unknown; headers?: Record<string, string>; afterMs?: number } | "hang";

/** A google.rpc.Status body as the gateway writes it. */
export function statusBody(code: number, message: string, reason: string, metadata: Record<string, string> = {}): unknown {
  return { code, message, details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "idnode.dev", metadata }] };
}

/** An HTTP server on loopback that records every request and answers with handler's reply. */
export class FakeNode {
  readonly seen: Seen[] = [];
  private server: Server | undefined;
  private readonly hung: ServerResponse[] = [];
  address = "";

  constructor(private readonly handler: (req: Seen, n: number) => Reply) {}

  async listen(): Promise<string> {
    const server = createServer((req, res) => this.serve(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.address = `127.0.0.1:${server.address().port}`;
    return this.address;
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    let text = "";
    req.on("data", (chunk) => {
      text += new TextDecoder().decode(chunk);
    });
    req.on("end", () => {
      const seen: Seen = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
      this.seen.push(seen);
      const reply = this.handler(seen, this.seen.length);
      if (reply === "hang") {
        this.hung.push(res);
        return;
      }
      const answer = (): void => {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify(reply.body));
      };
      if (reply.afterMs === undefined) answer();
      else setTimeout(answer, reply.afterMs);
    });
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.end();
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
