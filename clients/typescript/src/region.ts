/**
 * A region label as the nodes take it (idnode --region): 1 to 64 letters, digits, '-', '_' and
 * '.', as cloud regions and zones are named (eu-west-1, us-east1-b). A label no node could carry
 * is a typo, which is better refused when the client is made than found as slow calls later.
 */
const REGION_LABEL = /^[A-Za-z0-9._-]{1,64}$/;

function label(what: string, value: unknown): string {
  if (typeof value !== "string") throw new TypeError(`idnode: ${what} must be a string (got ${typeof value})`);
  if (!REGION_LABEL.test(value)) {
    throw new RangeError(`idnode: ${what} ${JSON.stringify(value)} is not a region label: 1 to 64 letters, digits, '-', '_' and '.', as the nodes' --region`);
  }
  return value;
}

/**
 * Which of the client's nodes (their base URLs, in order) are in the client's region, from the
 * region and nodeRegions options; undefined when the client has no region. nodeRegions is keyed
 * by the addresses given to the client, which baseURL turns into base URLs; a node it leaves out
 * is in another region. Configuration that cannot mean what its writer meant is refused.
 */
export function localNodes(
  nodes: readonly string[],
  region: string | undefined,
  nodeRegions: Readonly<Record<string, string>> | undefined,
  baseURL: (addr: string) => string,
): boolean[] | undefined {
  if (region === undefined && nodeRegions === undefined) return undefined;
  if (region === undefined) throw new TypeError("idnode: nodeRegions needs region, the client's own region, to say which nodes are near");
  const own = label("region", region);
  if (nodeRegions === undefined) throw new TypeError(`idnode: region ${JSON.stringify(own)} needs nodeRegions, each node's region by its address, to find the nodes of that region`);
  if (nodeRegions === null || typeof nodeRegions !== "object" || Array.isArray(nodeRegions)) {
    throw new TypeError("idnode: nodeRegions must be an object mapping each node's address to its region");
  }
  const regions: (string | undefined)[] = nodes.map(() => undefined);
  for (const [addr, value] of Object.entries(nodeRegions)) {
    const nodeRegion = label(`nodeRegions[${JSON.stringify(addr)}]`, value);
    let idx = -1;
    try {
      idx = nodes.indexOf(baseURL(addr));
    } catch {
      // Not an address at all: refused below as none of the client's nodes.
    }
    if (idx < 0) throw new RangeError(`idnode: nodeRegions names ${JSON.stringify(addr)}, which is not one of the client's nodes (${nodes.join(", ")})`);
    const before = regions[idx];
    if (before !== undefined && before !== nodeRegion) {
      throw new RangeError(`idnode: nodeRegions puts ${nodes[idx]} in two regions, ${JSON.stringify(before)} and ${JSON.stringify(nodeRegion)}`);
    }
    regions[idx] = nodeRegion;
  }
  const local = regions.map((r) => r === own);
  if (!local.includes(true)) {
    throw new RangeError(`idnode: none of the client's nodes is in its region ${JSON.stringify(own)} by nodeRegions (a node left out of it is in another region)`);
  }
  return local;
}

/**
 * How long a node of the client's region that failed is tried only after the others, after its
 * first failure: a dead node then costs one failed attempt a second rather than one a call, and
 * calls return to it about a second after it is back.
 */
export const LOCAL_RETRY_MS = 1000;

/**
 * What the wait of a node that keeps failing grows to at most: it doubles each time the node
 * fails again after its wait ended. A node that hangs rather than refuses (paused, or its network
 * blackholed) costs a whole attempt timeout each time its wait ends, so a fixed second would be a
 * latency spike a second for as long as it hangs. But a node that waits is tried first again only
 * when its wait ends, so the wait is also how long calls keep crossing to other regions after the
 * node is back: 30 s keeps that to half a minute while a node that never answers costs one attempt
 * timeout every 30 s.
 */
export const LOCAL_RETRY_MAX_MS = 30_000;

/**
 * The order in which one call tries the client's nodes, and what the client remembers between
 * calls to decide it.
 *
 * Without a region, a call starts at the node its route names (the leader, or the node that
 * granted a HiLo range), else at the node that answered last, and goes round the nodes in the
 * order given. With a region, a call that names no node starts at a node of the client's region
 * (the one that answered last; at first a random one, or the first when the nodes are kept in
 * order), goes on to the other nodes of its region, then to the other regions' nodes. A node of
 * another region that answered never becomes the start, so calls come back to the region as soon
 * as one of its nodes answers, and a node that failed is tried only after every node that did not
 * until its wait ends (see failed).
 */
export class NodeOrder {
  /** Where a call that names no node starts; with a region, always a node of it. */
  private start: number;
  /** When each node's wait ends (clock ms); -Infinity once it answered. Only a client with a region reads it. */
  private readonly waitUntil: number[];
  /** How long each node's wait is (ms); 0 once it answered. */
  private readonly waitMs: number[];
  /**
   * Each start's round of the nodes, made once: a call without a region takes its plan from here
   * and allocates nothing for it.
   */
  private readonly rounds: readonly (readonly number[])[];

  constructor(
    count: number,
    private readonly local: readonly boolean[] | undefined,
    inOrder: boolean,
    private readonly clock: () => number = () => Date.now(),
  ) {
    this.waitUntil = Array.from({ length: count }, () => -Infinity);
    this.waitMs = Array.from({ length: count }, () => 0);
    this.rounds = Array.from({ length: count }, (_, from) => Array.from({ length: count }, (_, i) => (from + i) % count));
    const candidates = Array.from({ length: count }, (_, i) => i).filter((i) => local?.[i] ?? true);
    this.start = (inOrder ? candidates[0] : candidates[Math.floor(Math.random() * candidates.length)]) ?? 0;
  }

  /**
   * The nodes of one call, each once, in the order to try them; first is the node its route names.
   * Without a region it is the same array for every call from one node: the caller only reads it.
   */
  plan(first: number | undefined): readonly number[] {
    const local = this.local;
    if (local === undefined) return this.rounds[first ?? this.start] as readonly number[];
    const now = this.clock();
    const rank = (i: number): number => (now < (this.waitUntil[i] ?? -Infinity) ? 2 : 0) + (local[i] === true ? 0 : 1);
    // The rest go round from the start, whatever node the route named: Array.sort is stable.
    const rest = (this.rounds[this.start] as readonly number[]).filter((i) => i !== first);
    rest.sort((a, b) => rank(a) - rank(b));
    return first === undefined ? rest : [first, ...rest];
  }

  /** Node idx answered a call whose route named first. */
  answered(idx: number, first: number | undefined): void {
    if (this.local === undefined) {
      if (idx !== (first ?? this.start)) this.start = idx;
      return;
    }
    this.waitUntil[idx] = -Infinity;
    this.waitMs[idx] = 0;
    if (this.local[idx] === true && idx !== first) this.start = idx;
  }

  /**
   * Node idx itself failed an attempt (unreachable, timed out or busy; the transport does not call
   * this for a refusal about the cluster, such as NO_QUORUM); without a region that changes no
   * plan. It waits LOCAL_RETRY_MS after its first failure, twice its last wait when it fails again
   * after that wait ended, up to LOCAL_RETRY_MAX_MS; a failure within the wait (another call's
   * attempt, or one that found every other node failing too) starts the same wait again.
   */
  failed(idx: number): void {
    if (this.local === undefined) return;
    const now = this.clock();
    const last = this.waitMs[idx] ?? 0;
    let wait = last;
    if (last === 0) wait = LOCAL_RETRY_MS;
    else if (now >= (this.waitUntil[idx] ?? -Infinity)) wait = Math.min(2 * last, LOCAL_RETRY_MAX_MS);
    this.waitMs[idx] = wait;
    this.waitUntil[idx] = now + wait;
  }
}
