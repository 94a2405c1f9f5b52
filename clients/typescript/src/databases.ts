import { JsonObject, big, bool, int64, list, num, object, str, strings } from "./json.js";
import { Caller, seg } from "./caller.js";
import { CallOptions } from "./transport.js";

export interface DatabaseStatus {
  name: string;
  identities: bigint;
  hiloTags: bigint;
  claims: bigint;
  /** The database's limits; 0 for none. */
  maxIdentities: bigint;
  maxCallsPerSecond: number;
  maxClaims: bigint;
  /** The opaque collections (folded, sorted), whether numeric IDs are opaque, and the key's fingerprint ("": not opaque). */
  opaqueCollections: string[];
  opaqueNumeric: boolean;
  opaqueKeyFingerprint: string;
}

/** An API key, without its secret. */
export interface KeyStatus {
  id: string;
  database: string;
  /** "reader", "writer" or "admin". */
  role: string;
}


export function keyStatus(o: JsonObject): KeyStatus {
  return { id: str(o, "id"), database: str(o, "database"), role: str(o, "role") };
}

/**
 * The calls that manage databases and their API keys (admin calls): client.databases. They
 * change the cluster and are not simply repeatable, so each goes to another node only when the
 * first certainly did nothing: it refused the connection or answered NO_QUORUM. After any other
 * failure, see client.admin.status() before trying again.
 */
export class DatabaseCalls {
  /** @internal */
  constructor(private readonly call: Caller) {}

  /** Creates a database with its limits (an admin call); a name deleted before comes back with its counters. */
  async create(name: string, opts: CallOptions & { maxIdentities?: bigint | number; maxCallsPerSecond?: number; maxClaims?: bigint | number } = {}): Promise<void> {
    const body = {
      name,
      maxIdentities: opts.maxIdentities === undefined ? undefined : int64("maxIdentities", opts.maxIdentities, 0n),
      maxCallsPerSecond: opts.maxCallsPerSecond,
      maxClaims: opts.maxClaims === undefined ? undefined : int64("maxClaims", opts.maxClaims, 0n),
    };
    await this.call({ method: "POST", path: "/v1/databases", body, atMostOnce: true }, "leader", opts);
  }

  /** Deletes a database (an admin call); without force, refused while it has counters. */
  async delete(name: string, opts: CallOptions & { force?: boolean } = {}): Promise<void> {
    const query = { force: opts.force === true ? "true" : undefined };
    await this.call({ method: "DELETE", path: `/v1/databases/${seg("database name", name)}`, query, atMostOnce: true }, "leader", opts);
  }

  /** The databases, "default" among them, as the leader knows them. */
  async list(opts: CallOptions = {}): Promise<DatabaseStatus[]> {
    return list(await this.call({ method: "GET", path: "/v1/databases" }, "leader", opts), "databases").map((d) => {
      const o = object(d);
      return {
        name: str(o, "name"),
        identities: big(o, "identities"),
        hiloTags: big(o, "hiloTags"),
        claims: big(o, "claims"),
        maxIdentities: big(o, "maxIdentities"),
        maxCallsPerSecond: num(o, "maxCallsPerSecond"),
        maxClaims: big(o, "maxClaims"),
        opaqueCollections: strings(o, "opaqueCollections"),
        opaqueNumeric: bool(o, "opaqueNumeric"),
        opaqueKeyFingerprint: str(o, "opaqueKeyFingerprint"),
      };
    });
  }

  /** Makes an API key of database with role ("reader", "writer" or "admin"); its key is shown only this once (an admin call). */
  async createKey(database: string, role: string, opts: CallOptions = {}): Promise<{ id: string; key: string }> {
    const r = await this.call({ method: "POST", path: "/v1/keys", body: { database, role }, atMostOnce: true }, "leader", opts);
    return { id: str(r, "id"), key: str(r, "key") };
  }

  /** Deletes an API key (an admin call). */
  async deleteKey(id: string, opts: CallOptions = {}): Promise<void> {
    await this.call({ method: "DELETE", path: `/v1/keys/${seg("key id", id)}`, atMostOnce: true }, "leader", opts);
  }

  /** The API keys, without their secrets (an admin call). */
  async listKeys(opts: CallOptions = {}): Promise<KeyStatus[]> {
    return list(await this.call({ method: "GET", path: "/v1/keys" }, "leader", opts), "keys").map((k) => keyStatus(object(k)));
  }
}
