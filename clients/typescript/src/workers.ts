import { JsonObject, big, count, int64, list, num, object, str, whole } from "./json.js";
import { newRequestId } from "./hilo.js";
import { MAX_LEASE_MS, MIN_LEASE_MS, WorkerLease } from "./numeric.js";
import { Caller } from "./caller.js";
import { CallOptions } from "./transport.js";

/** A leased worker id, with its holder and database. */
export interface WorkerStatus extends WorkerLease {
  database: string;
  holder: string;
}

function workerLease(o: JsonObject): WorkerLease {
  return { worker: num(o, "worker"), epoch: big(o, "epoch"), minMs: big(o, "minMs"), maxMs: big(o, "maxMs"), expiresAtMs: big(o, "expiresAtMs") };
}

/** The largest worker id of any layout. */
const MAX_WORKER = 2 ** 31 - 1;

/** The worker leases' calls, in the client's database, which a NumericGenerator makes for itself: client.workers. */
export class WorkerCalls {
  /** @internal */
  constructor(private readonly call: Caller) {}

  /** Leases a worker id of the database for leaseMs (1 s to 1 h) under a layout of workerBits (1..62). */
  async acquire(holder: string, workerBits: number, leaseMs: number, opts: CallOptions = {}): Promise<WorkerLease> {
    const body = { holder, workerBits: whole("workerBits", workerBits, 1, 62), leaseMs: String(whole("leaseMs", leaseMs, MIN_LEASE_MS, MAX_LEASE_MS)), requestId: newRequestId() };
    return workerLease(await this.call({ method: "POST", path: "/v1/workers:acquire", body }, "leader", opts));
  }

  /** Extends the lease of worker (under epoch, which fences out a holder that lost it) by leaseMs. */
  async renew(worker: number, epoch: bigint, leaseMs: number, opts: CallOptions = {}): Promise<WorkerLease> {
    const body = { epoch: int64("epoch", epoch, 0n), leaseMs: String(whole("leaseMs", leaseMs, MIN_LEASE_MS, MAX_LEASE_MS)) };
    return workerLease(await this.call({ method: "POST", path: `/v1/workers/${whole("worker", worker, 0, MAX_WORKER)}:renew`, body }, "leader", opts));
  }

  /** One page of the worker ids leased in the client's database. */
  async list(opts: CallOptions & { pageSize?: number; pageToken?: string } = {}): Promise<{ workers: WorkerStatus[]; nextPageToken: string }> {
    const query = { pageSize: count("pageSize", opts.pageSize), pageToken: opts.pageToken };
    const page = await this.call({ method: "GET", path: "/v1/workers", query }, "leader", opts);
    return {
      workers: list(page, "workers").map((w) => ({ ...workerLease(object(w)), database: str(object(w), "database"), holder: str(object(w), "holder") })),
      nextPageToken: str(page, "nextPageToken"),
    };
  }

  /** Gives worker back before its lease ends. */
  async release(worker: number, epoch: bigint, opts: CallOptions = {}): Promise<void> {
    const body = { epoch: int64("epoch", epoch, 0n) };
    await this.call({ method: "POST", path: `/v1/workers/${whole("worker", worker, 0, MAX_WORKER)}:release`, body }, "leader", opts);
  }
}
