import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { AlreadyExistsError, Client, InvalidArgumentError, NotOpaqueFormError, OpaqueCollectionError, Reason, UnauthenticatedError, opaqueId } from "../src/index.js";
import { ClusterInfo, IdCluster, httpAddrs } from "./support/cluster.js";

// The calls beyond IDs, against three real nodes that require an admin token: the cluster's
// status and version, databases and API keys, what a node makes of a credential, listings of
// HiLo tags, workers and series, a series' journal, releasing an owner's claims, filling an
// entity's id, a backup and its restore (with a margin too), handing the leadership over, adding a non-voter and
// taking it out, and taking a node out (last: the cluster keeps two nodes).

const ADMIN_TOKEN = "ts-admin-token-1";
let cluster: IdCluster;
let info: ClusterInfo;
let operator: Client;

before(async () => {
  cluster = new IdCluster();
  info = await cluster.start({ nodes: 3, adminToken: ADMIN_TOKEN });
  operator = new Client(httpAddrs(info), { adminToken: ADMIN_TOKEN, timeoutMs: 20_000 });
}, { timeout: 120_000 });

after(async () => {
  await operator?.close();
  await cluster?.close();
});

test("status and the cluster version come typed", async () => {
  const s = await operator.admin.status({ consistent: true });
  assert.deepEqual(s.nodes.map((n) => n.tag).sort(), ["A", "B", "C"]);
  assert.equal(s.leader, await cluster.leader());
  assert.ok(s.term > 0n && s.commitIndex > 0n, `term ${s.term}, commit index ${s.commitIndex}`);
  assert.equal(s.nodes.filter((n) => n.state === "leader").length, 1, JSON.stringify(s.nodes.map((n) => n.state)));
  assert.ok(s.nodes.every((n) => n.voter && n.grpcAddress !== "" && typeof n.supportedVersion === "number"));
  // The leader's clock is the reference: its offset is 0 from the start. A follower's shows once
  // it measured it (every 10 s).
  const lead = s.nodes.find((n) => n.state === "leader");
  assert.ok(lead?.clockOffsetMeasured && lead.clockOffsetSeconds === 0, `leader ${lead?.tag}: offset ${lead?.clockOffsetSeconds}, measured ${lead?.clockOffsetMeasured}`);
  assert.ok(s.nodes.every((n) => typeof n.clockOffsetMeasured === "boolean" && typeof n.clockOffsetSeconds === "number"));
  const v = await operator.admin.clusterVersion();
  assert.ok(v.finalised >= 1 && v.supported >= v.finalised, JSON.stringify(v));
  assert.equal(v.members.length, 3);
  assert.equal(s.clusterVersion.finalised, v.finalised);
  assert.equal((await operator.admin.setClusterVersion(v.finalised)).finalised, v.finalised, "setting the version in effect changed it");
});

test("databases and keys: made, listed, used and deleted with the admin token", async () => {
  const who = await operator.admin.whoAmI();
  assert.notEqual(who.admin, "", "the admin token gives no admin right");
  assert.equal(who.key, undefined);
  await operator.databases.create("shop", { maxIdentities: 1000 });
  const shop = (await operator.databases.list()).find((d) => d.name === "shop");
  assert.equal(shop?.maxIdentities, 1000n);
  const { id, key } = await operator.databases.createKey("shop", "writer");
  assert.match(key, /^idk_/);
  assert.deepEqual((await operator.databases.listKeys()).find((k) => k.id === id), { id, database: "shop", role: "writer" });
  const writer = new Client(httpAddrs(info), { apiKey: key, database: "shop" });
  assert.deepEqual((await writer.admin.whoAmI()).key, { id, database: "shop", role: "writer" });
  assert.match(await writer.nextId("orders"), /^orders\/1-[ABC]$/);
  await writer.close();
  const tags = await operator.listHiLo({ prefix: "ord" });
  assert.deepEqual(tags.tags.map((t) => t.tag), [], "the default database has HiLo tags of shop's");
  const shopAdmin = new Client(httpAddrs(info), { adminToken: ADMIN_TOKEN, database: "shop" });
  const shopTags = (await shopAdmin.listHiLo()).tags;
  assert.equal(shopTags.length, 1);
  assert.equal(shopTags[0]?.tag, "orders");
  assert.ok((shopTags[0]?.max ?? 0n) >= 1n);
  // Keys are required while the cluster has one: a second keeps the deleted one refused.
  const kept = await operator.databases.createKey("shop", "reader");
  await operator.databases.deleteKey(id);
  // At the leader, which applied the deletion before it answered; a follower may be a moment behind.
  const refused = new Client(httpAddrs(info, [await cluster.leader()]), { apiKey: key, database: "shop", backoff: { maxAttempts: 3 } });
  await assert.rejects(refused.nextIdentity("orders"), UnauthenticatedError);
  await operator.databases.deleteKey(kept.id);
  await operator.databases.delete("shop", { force: true });
  assert.equal((await operator.databases.list()).find((d) => d.name === "shop"), undefined);
  await shopAdmin.close();
});

test("workers, series and the journal are listed; an owner's claims are released at once", async () => {
  const lease = await operator.workers.acquire("ts-admin-test", 10, 30_000);
  const workers = (await operator.workers.list()).workers;
  assert.deepEqual(
    workers.map((w) => [w.worker, w.holder, w.database]),
    [[lease.worker, "ts-admin-test", "default"]],
  );
  await operator.workers.release(lease.worker, lease.epoch);
  await operator.series.create("invoices", "INV-{n:04}");
  const issued = [await operator.series.issue("invoices"), await operator.series.issue("invoices", { fields: { customer: "c1" } })];
  assert.deepEqual((await operator.series.list()).map((s) => s.name), ["invoices"]);
  const journal = await operator.series.journal("invoices");
  assert.deepEqual(journal.map((e) => e.id), issued.map((e) => e.id));
  assert.deepEqual(journal[1]?.fields, { customer: "c1" });
  assert.deepEqual((await operator.series.journal("invoices", { fromSeq: 2 })).map((e) => e.id), [issued[1]?.id]);
  await operator.claim(["users/ayende", "users/oren"], { owner: "session-1" });
  assert.equal(await operator.admin.releaseOwner("session-1"), 2n);
  assert.deepEqual(await operator.getClaims(["users/ayende", "users/oren"]), []);
});

test("assignId fills an entity's id by what it holds: nothing, a prefix, or an ID of its own", async () => {
  class Order {
    id = "";
  }
  class PackageTracking {
    id?: string;
  }
  const order = new Order();
  assert.match(await operator.assignId(order), /^orders\/1-[ABC]$/);
  assert.match(order.id, /^orders\/1-[ABC]$/);
  const tracking = new PackageTracking();
  assert.match(await operator.assignId(tracking), /^PackageTrackings\/1-[ABC]$/);
  assert.match(await operator.assignId({ id: "" }, { collection: "products" }), /^products\/1-[ABC]$/);
  await assert.rejects(operator.assignId({}), InvalidArgumentError);
  const invoice = { id: "invoices|" };
  assert.equal(await operator.assignId(invoice), "invoices/1");
  assert.equal(invoice.id, "invoices/1");
  assert.match(await operator.assignId({ id: "categories/" }), /^categories\/0{18}1-[ABC]$/);
  const person = { id: "people/ayende" };
  assert.equal(await operator.assignId(person, { claim: true, owner: "o1" }), "people/ayende");
  assert.deepEqual(await operator.getClaims(["people/ayende"]), [{ id: "people/ayende", owner: "o1" }]);
  await assert.rejects(operator.assignId({ id: "people/ayende" }, { claim: true, owner: "o2" }), AlreadyExistsError);
  await assert.rejects(operator.assignId({ id: "bad\\id" }), InvalidArgumentError);
});

test("an opaque collection: made by the admin, its forms from generate and assignId, its values hidden", async () => {
  await operator.databases.create("vault");
  const status = await operator.makeOpaque("vault", ["Orders"]);
  assert.equal(status.database, "vault");
  assert.deepEqual(status.collections, ["orders"]);
  assert.match(status.keyFingerprint, /^[0-9a-f]{16}$/);
  const again = await operator.makeOpaque("vault", ["orders", "invoices"]);
  assert.deepEqual(again.collections, ["invoices", "orders"]);
  assert.equal(again.keyFingerprint, status.keyFingerprint, "a second call made another key");
  assert.deepEqual((await operator.databases.list()).find((d) => d.name === "vault")?.opaqueCollections, ["invoices", "orders"]);

  const vault = new Client(httpAddrs(info), { database: "vault" });
  try {
    const ids = await vault.generate("orders|", { count: 5 });
    assert.equal(new Set(ids).size, 5);
    for (const id of ids) assert.equal(opaqueId(id, "orders"), id);
    await assert.rejects(vault.nextIdentity("orders"), (e: unknown) => e instanceof OpaqueCollectionError && e.reason === Reason.OPAQUE_COLLECTION);
    const order = { id: "orders|" };
    assert.equal(await vault.assignId(order), order.id);
    assert.equal(opaqueId(order.id, "orders"), order.id);
    assert.ok(!ids.includes(order.id));
    // Without the admin role Explain says opaque and nothing more; with it, the value.
    const seen = await vault.explain(ids[0] as string);
    assert.deepEqual([seen.kind, seen.opaque, seen.value, seen.number], ["identity", true, 0n, ""]);
    const told = await operator.explain(ids[0] as string, { database: "vault" });
    assert.ok(told.opaque && told.number === "1", JSON.stringify({ ...told, value: String(told.value), sequence: String(told.sequence) }));
    await assert.rejects(vault.explain("orders/KC6HECSWE6SX"), NotOpaqueFormError);
  } finally {
    await vault.close();
  }
});

test("a backup restored raises nothing that is already as high", async () => {
  await operator.nextIdentity("restored", { count: 5 });
  // One database's backup carries no node tags, so the cluster it came from takes it back.
  const backup = await operator.admin.backup({ database: "default" });
  assert.equal(new TextDecoder().decode(backup.data.subarray(0, 22)), "idnode-fsm-snapshot-v1");
  assert.ok(backup.index > 0n && ["A", "B", "C"].includes(backup.leader), `${backup.leader} at ${backup.index}`);
  const r = await operator.admin.restore(backup.data);
  assert.ok(r.identities >= 1n, JSON.stringify(r, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v)));
  assert.equal(r.identitiesRaised, 0n);
  assert.equal(r.claimsRestored, 0n);
  assert.deepEqual(await operator.nextIdentity("restored"), { first: 6n, last: 6n, skipped: [] });
});

test("a restore with a margin skips that far above the backup and counts its opaque databases", async () => {
  await operator.databases.create("ledger");
  await operator.makeOpaque("ledger", ["invoices"]);
  const ledger = new Client(httpAddrs(info), { database: "ledger" });
  try {
    await ledger.nextIdentity("credits", { count: 10 });
    await ledger.generate("invoices|", { count: 2 });
    const backup = await operator.admin.backup({ database: "ledger" });
    const r = await operator.admin.restore(backup.data, { ahead: { identities: { add: 100n } } });
    const show = JSON.stringify(r, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v));
    assert.deepEqual(r.ahead, { identities: { add: 100n, percent: 0n }, hilo: { add: 0n, percent: 0n } }, show);
    assert.deepEqual([r.identities, r.identitiesRaised, r.identitiesSkippedMin, r.identitiesSkippedMax], [2n, 2n, 100n, 100n], show);
    assert.deepEqual([r.hiloSkippedMin, r.hiloSkippedMax], [0n, 0n], show);
    // The database holds its key already: counted, and nothing to put back.
    assert.deepEqual([r.opaqueDatabases, r.opaqueRestored], [1n, 0n], show);
    assert.deepEqual(await ledger.nextIdentity("credits"), { first: 111n, last: 111n, skipped: [] });
  } finally {
    await ledger.close();
  }
});

test("a restore by rates says what it assumed from the backup's rates", async () => {
  await operator.nextIdentity("by-rates", { count: 3 });
  const backup = await operator.admin.backup({ database: "default" });
  const r = await operator.admin.restore(backup.data, { ahead: { hilo: { add: 64n }, byRates: true } });
  const show = JSON.stringify(r, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v));
  // The backup, taken by this build, recorded its cluster's rates; HiLo keeps the margin given.
  assert.ok(r.rates !== undefined && r.rates.recorded && r.rates.factor === 2n && r.rates.ageMs >= 0n, show);
  assert.deepEqual(r.ahead, { identities: { add: 0n, percent: 0n }, hilo: { add: 64n, percent: 0n } }, show);
});

test("the leadership moves to the node named", async () => {
  const leader = await cluster.leader();
  const to = ["A", "B", "C"].find((t) => t !== leader) as string;
  assert.equal(await operator.admin.transferLeadership(to), to);
  assert.equal(await cluster.leader(), to);
});

test("a non-voter is added and taken out again", async () => {
  // Never started: a non-voter that does not answer leaves the quorum as it was.
  const added = await operator.admin.addNode({ raftAddress: "127.0.0.1:9", grpcAddress: "127.0.0.1:9", nonVoter: true });
  assert.match(added.tag, /^[A-Z]+$/, "the cluster names the new node's tag");
  assert.equal(added.voter, false);
  assert.equal(added.raftAddress, "127.0.0.1:9");
  const members = async (): Promise<string[]> => (await operator.admin.status({ consistent: true })).nodes.map((n) => n.tag);
  assert.ok((await members()).includes(added.tag), `status does not list ${added.tag}`);
  await operator.admin.removeNode(added.tag);
  assert.ok(!(await members()).includes(added.tag), `status still lists ${added.tag}`);
});

test("a node taken out of the cluster leaves its members", async () => {
  const leader = await cluster.leader();
  const gone = ["A", "B", "C"].find((t) => t !== leader) as string;
  await operator.admin.removeNode(gone);
  const s = await operator.admin.status({ consistent: true });
  assert.deepEqual(s.nodes.map((n) => n.tag).sort(), ["A", "B", "C"].filter((t) => t !== gone));
});
