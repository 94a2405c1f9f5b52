import { invalidInput } from "./errors.js";
import { newRequestId } from "./hilo.js";
import { Json, JsonObject, big, bool, int64, list, object, str } from "./json.js";
import { Caller, seg } from "./caller.js";
import { CallOptions } from "./transport.js";

export type SeriesPeriod = "none" | "year" | "month";
export type SeriesPolicy = "gapless" | "gapsAllowedJournaled";

export interface Series {
  name: string;
  format: string;
  period: SeriesPeriod;
  policy: SeriesPolicy;
}

export interface SeriesEntry {
  seq: bigint;
  kind: "issued" | "voided";
  period: string;
  number: bigint;
  id: string;
  hash: string;
  prevHash: string;
  requestId: string;
  reason: string;
  fields: Record<string, string>;
}

export interface SeriesVerification {
  ok: boolean;
  entries: bigint;
  issued: bigint;
  voided: bigint;
  /** The first entry whose hash does not chain (0 when ok). */
  breakSeq: bigint;
  breakReason: string;
}

const periods: Record<SeriesPeriod, string> = { none: "SERIES_PERIOD_NONE", year: "SERIES_PERIOD_YEAR", month: "SERIES_PERIOD_MONTH" };
const policies: Record<SeriesPolicy, string> = { gapless: "SERIES_POLICY_GAPLESS", gapsAllowedJournaled: "SERIES_POLICY_GAPS_ALLOWED_JOURNALED" };

function enumKey<K extends string>(table: Record<K, string>, value: Json | undefined, dflt: K): K {
  for (const [k, v] of Object.entries(table) as [K, string][]) {
    if (v === value) return k;
  }
  return dflt;
}


function seriesEntry(e: JsonObject): SeriesEntry {
  const fields: Record<string, string> = {};
  for (const f of list(e, "fields")) fields[str(object(f), "key")] = str(object(f), "value");
  return {
    seq: big(e, "seq"),
    kind: e.kind === "SERIES_ENTRY_KIND_VOIDED" ? "voided" : "issued",
    period: str(e, "period"),
    number: big(e, "number"),
    id: str(e, "id"),
    hash: str(e, "hash"),
    prevHash: str(e, "prevHash"),
    requestId: str(e, "requestId"),
    reason: str(e, "reason"),
    fields,
  };
}

function series(s: JsonObject): Series {
  return { name: str(s, "name"), format: str(s, "format"), period: enumKey(periods, s.period, "none"), policy: enumKey(policies, s.policy, "gapless") };
}

/** The fiscal series' calls, in the client's database: client.series. */
export class SeriesCalls {
  /** @internal */
  constructor(private readonly call: Caller) {}

  /** Creates a fiscal series; format is like "INV-{n:04}". */
  async create(name: string, format: string, opts: CallOptions & { period?: SeriesPeriod; policy?: SeriesPolicy; requestId?: string } = {}): Promise<Series> {
    const period = opts.period ?? "none";
    const policy = opts.policy ?? "gapless";
    if (!(period in periods)) throw invalidInput(`period must be "none", "year" or "month" (got ${JSON.stringify(period)})`);
    if (!(policy in policies)) throw invalidInput(`policy must be "gapless" or "gapsAllowedJournaled" (got ${JSON.stringify(policy)})`);
    const body = { name, format, period: periods[period], policy: policies[policy], requestId: opts.requestId ?? newRequestId() };
    return series(object((await this.call({ method: "POST", path: "/v1/series", body }, "leader", opts)).series));
  }

  /** The series of the client's database. */
  async list(opts: CallOptions = {}): Promise<Series[]> {
    return list(await this.call({ method: "GET", path: "/v1/series" }, "leader", opts), "series").map((s) => series(object(s)));
  }

  /** The journal of a series: its entries from fromSeq to toSeq (both 1-based and inclusive; 0: from the first, to the last). */
  async journal(name: string, opts: CallOptions & { fromSeq?: bigint | number; toSeq?: bigint | number } = {}): Promise<SeriesEntry[]> {
    const query = {
      fromSeq: opts.fromSeq === undefined ? undefined : int64("fromSeq", opts.fromSeq, 0n),
      toSeq: opts.toSeq === undefined ? undefined : int64("toSeq", opts.toSeq, 0n),
    };
    const r = await this.call({ method: "GET", path: `/v1/series/${seg("series name", name)}/journal`, query, stream: true }, "leader", opts);
    return list(r, "results").map((e) => seriesEntry(object(e)));
  }

  /** Issues the series' next number; a retry with the same requestId answers the same entry. */
  async issue(
    series: string,
    opts: CallOptions & { requestId?: string; documentHash?: string; fields?: Record<string, string>; actor?: string } = {},
  ): Promise<SeriesEntry> {
    const fields = Object.entries(opts.fields ?? {}).map(([key, value]) => ({ key, value }));
    const body = { requestId: opts.requestId ?? newRequestId(), documentHash: opts.documentHash, fields, actor: opts.actor };
    return seriesEntry(object((await this.call({ method: "POST", path: `/v1/series/${seg("series name", series)}:issue`, body }, "leader", opts)).entry));
  }

  /** Voids an issued number: a void is an entry of its own; the number is never reused. */
  async void(
    series: string,
    number: bigint | number,
    opts: CallOptions & { period?: string; reason?: string; correcting?: string; requestId?: string; actor?: string } = {},
  ): Promise<SeriesEntry> {
    const body = { number: int64("number", number, 1n), period: opts.period, reason: opts.reason, correcting: opts.correcting, requestId: opts.requestId ?? newRequestId(), actor: opts.actor };
    return seriesEntry(object((await this.call({ method: "POST", path: `/v1/series/${seg("series name", series)}:void`, body }, "leader", opts)).entry));
  }

  /** Walks the series' hash chain. */
  async verify(series: string, opts: CallOptions = {}): Promise<SeriesVerification> {
    const r = await this.call({ method: "GET", path: `/v1/series/${seg("series name", series)}:verify` }, "leader", opts);
    return { ok: bool(r, "ok"), entries: big(r, "entries"), issued: big(r, "issued"), voided: big(r, "voided"), breakSeq: big(r, "breakSeq"), breakReason: str(r, "breakReason") };
  }
}
