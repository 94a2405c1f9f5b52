import { invalidInput } from "./errors.js";
import { JsonObject } from "./json.js";
import { Refusals } from "./refusals.js";
import { ApiRequest, CallOptions, Route } from "./transport.js";

/**
 * How a part of the client (client.admin, client.series, client.databases, client.workers)
 * reaches the nodes: through the client's own transport, so a part shares its connections, the
 * leader it learnt, its credentials and close().
 */
export type Caller = (req: ApiRequest, route: Route, opts?: CallOptions, refusals?: Refusals) => Promise<JsonObject>;

/**
 * A path parameter, escaped. An empty one would leave the route's path (the gateway answers 404),
 * so it is refused here with what the node says of an empty name.
 */
export function seg(what: string, s: string): string {
  if (s === "") throw invalidInput(`${what} is empty`);
  return encodeURIComponent(s);
}

