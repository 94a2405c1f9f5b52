package dev.idnode.client;

import dev.idnode.v1.AcquireWorkerRequest;
import dev.idnode.v1.AddNodeRequest;
import dev.idnode.v1.AddNodeResponse;
import dev.idnode.v1.ClusterVersionResponse;
import dev.idnode.v1.CreateDatabaseRequest;
import dev.idnode.v1.CreateSeriesRequest;
import dev.idnode.v1.DatabaseStatus;
import dev.idnode.v1.ExplainResponse;
import dev.idnode.v1.OpaqueStatus;
import dev.idnode.v1.GenerateRequest;
import dev.idnode.v1.IssueRequest;
import dev.idnode.v1.KeyStatus;
import dev.idnode.v1.ListHiLoRequest;
import dev.idnode.v1.ListHiLoResponse;
import dev.idnode.v1.ListWorkersRequest;
import dev.idnode.v1.ListWorkersResponse;
import dev.idnode.v1.NextHiLoRequest;
import dev.idnode.v1.ReleaseWorkerRequest;
import dev.idnode.v1.RenewWorkerRequest;
import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.RestoreResponse;
import dev.idnode.v1.Series;
import dev.idnode.v1.SeriesEntry;
import dev.idnode.v1.StatusResponse;
import dev.idnode.v1.VerifySeriesResponse;
import dev.idnode.v1.VoidRequest;
import dev.idnode.v1.WhoAmIResponse;
import dev.idnode.v1.WorkerLease;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptor;
import io.grpc.Deadline;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettySslContextChannelCredentials;
import io.netty.handler.ssl.SslContext;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The Java client of idnode: typed, blocking calls for every RPC of {@code IdService},
 * {@code SeriesService} and {@code ClusterService} (admin calls with the admin token), with failover across
 * the nodes it was given; HiLo IDs from per-collection generators ({@link #nextId}); numeric IDs
 * ({@link #numericGenerator}). {@link #async()} gives the same calls as
 * {@link CompletableFuture}s.
 *
 * <pre>{@code
 * try (IdnodeClient client = IdnodeClient.builder().nodes("10.0.0.1:7070", "10.0.0.2:7070").build()) {
 *   String id = client.nextId("orders");           // "orders/1-A": HiLo, no round trip per ID
 *   List<String> ids = client.generate("invoices|", 1); // ["invoices/1"]
 * }                                                // returns the unused rest of the HiLo ranges
 * }</pre>
 *
 * <p>A call that fails with {@code UNAVAILABLE} (no leader or quorum, node down), with
 * {@code RESOURCE_EXHAUSTED}/{@code NODE_BUSY}, or runs past the per-attempt timeout (3 s) is
 * tried on the next node at once; once every node failed it, the next round waits a backoff
 * (25 ms doubling to 1 s, ±20%), until the call's deadline (30 s unless
 * {@link Builder#deadline} or {@link #withDeadline} say otherwise). Calls that reserve values
 * carry a request id that every retry reuses, so a retry never burns values. Calls that need the
 * leader go to the node the {@code idnode-leader} header named last; the others, with
 * {@link Builder#region}, to a node of the client's region first. Refusals are
 * {@link IdnodeException}s carrying the code, the ErrorInfo reason and its metadata.
 *
 * <p>Thread-safe. One client per database and credential; share it.
 */
public final class IdnodeClient implements AutoCloseable {
  private static final Pattern DATABASE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  /** What one call may have in flight unread, as internal/flowcontrol's StreamWindow in Go. */
  private static final int FLOW_CONTROL_WINDOW = 1 << 20;

  /**
   * How long {@link #close} may take when the builder names no other bound
   * ({@link Builder#closeTimeout}): giving numbers back is worth a short wait, not a stalled
   * shutdown when no node answers.
   */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(2);

  private final AsyncIdnodeClient async;
  private final Generators generators;
  private final Function<Class<?>, String> collectionName;
  private final boolean owner;
  private final Duration closeTimeout;
  private final AdminCalls admin;
  private final SeriesCalls series;
  private final DatabaseCalls databases;
  private final WorkerCalls workers;

  private IdnodeClient(AsyncIdnodeClient async, Generators generators, Function<Class<?>, String> collectionName, boolean owner,
      Duration closeTimeout) {
    this.async = async;
    this.admin = new AdminCalls(async.admin());
    this.series = new SeriesCalls(async.series());
    this.databases = new DatabaseCalls(async.databases());
    this.workers = new WorkerCalls(async.workers());
    this.generators = generators;
    this.collectionName = collectionName;
    this.owner = owner;
    this.closeTimeout = closeTimeout;
  }

  /** A builder; give it at least one node. @return the builder */
  public static Builder builder() {
    return new Builder();
  }

  /** The same calls, non-blocking. @return the view, sharing this client's connections */
  public AsyncIdnodeClient async() {
    return async;
  }

  /**
   * This client with every call bounded by {@code deadline}, retries included. The view shares
   * the connections and generators; close the original client, not the view.
   *
   * @param deadline how long a call may take in all, positive
   * @return the view
   */
  public IdnodeClient withDeadline(Duration deadline) {
    return new IdnodeClient(async.withDeadline(deadline), generators, collectionName, false, closeTimeout);
  }

  /**
   * The calls that run the cluster: status, members, leadership, backups, cluster version and
   * {@code releaseOwner}.
   *
   * @return the part, sharing this client's connections and deadline
   */
  public AdminCalls admin() {
    return admin;
  }

  /** The fiscal series' calls. @return the part, sharing this client's connections and deadline */
  public SeriesCalls series() {
    return series;
  }

  /** The calls that manage databases and API keys. @return the part, sharing this client's connections and deadline */
  public DatabaseCalls databases() {
    return databases;
  }

  /** The worker leases' calls. @return the part, sharing this client's connections and deadline */
  public WorkerCalls workers() {
    return workers;
  }

  /** The node addresses the client was built with. @return the addresses */
  public List<String> nodes() {
    return async.transport().addrs();
  }

  /**
   * Resolves a request string: a semantic ID is validated and echoed, {@code ""} gives UUIDv7s,
   * {@code "prefix/"} server-side IDs ({@code users/0000000000000000001-A}), {@code "prefix|"}
   * cluster identities ({@code users/1}).
   *
   * @param id the request string
   * @param count how many IDs, 0 meaning 1
   * @return the IDs
   */
  public List<String> generate(String id, long count) {
    return await(async.generate(id, count));
  }

  /**
   * {@link #generate(String, long)} with every field of the request.
   *
   * @param request the request
   * @return the IDs
   */
  public List<String> generate(GenerateRequest request) {
    return await(async.generate(request));
  }

  /**
   * Reserves {@code count} values of the identity counter {@code name}; retries reuse one
   * request id, so a retry never burns values. Threads asking for one value of the same counter
   * at once share one call ({@link AsyncIdnodeClient#nextIdentity(String, long)}).
   *
   * @param name the counter
   * @param count how many, 0 meaning 1
   * @return the block
   */
  public IdentityBlock nextIdentity(String name, long count) {
    return await(async.nextIdentity(name, count, "", false));
  }

  /**
   * {@link #nextIdentity(String, long)} with the caller's request id.
   *
   * @param name the counter
   * @param count how many, 0 meaning 1
   * @param requestId the request id, empty to make one
   * @return the block
   */
  public IdentityBlock nextIdentity(String name, long count, String requestId) {
    return await(async.nextIdentity(name, count, requestId, false));
  }

  /**
   * Raises (with {@code force}: sets) an identity counter.
   *
   * @param name the counter
   * @param value the value, not negative
   * @param force set it exactly, even lower
   * @return the counter afterwards
   */
  public long seedIdentity(String name, long value, boolean force) {
    return await(async.seedIdentity(name, value, force));
  }

  /**
   * Every identity counter whose name starts with {@code prefix}.
   *
   * @param prefix the prefix, empty for all
   * @return the counters
   */
  public List<Identity> listIdentities(String prefix) {
    return await(async.listIdentities(prefix));
  }

  /**
   * Claims semantic IDs for {@code owner}, all or nothing.
   *
   * @param owner the holder, empty for none
   * @param ids the IDs
   */
  public void claim(String owner, List<String> ids) {
    await(async.claim(owner, ids));
  }

  /**
   * {@link #claim(String, List)} with the caller's request id.
   *
   * @param owner the holder
   * @param ids the IDs
   * @param requestId the request id, empty to make one
   */
  public void claim(String owner, List<String> ids, String requestId) {
    await(async.claim(owner, ids, requestId));
  }

  /**
   * Releases claimed IDs.
   *
   * @param owner whose, empty for anybody's
   * @param ids the IDs
   * @return how many were released
   */
  public long release(String owner, List<String> ids) {
    return await(async.release(owner, ids));
  }

  /**
   * {@link #release(String, List)} with the caller's request id, which a retry after a lost
   * answer carries (from cluster version 8 it then answers the first attempt's count).
   *
   * @param owner whose, empty for anybody's
   * @param ids the IDs
   * @param requestId the request id, empty to make one
   * @return how many were released
   */
  public long release(String owner, List<String> ids, String requestId) {
    return await(async.release(owner, ids, requestId));
  }

  /**
   * Looks claims up.
   *
   * @param ids the IDs
   * @return the claims of those claimed
   */
  public List<Claim> getClaims(List<String> ids) {
    return await(async.getClaims(ids));
  }

  /**
   * Reserves a HiLo range (raw; {@link #nextId} does this for you).
   *
   * @param request the request
   * @return the range
   */
  public HiLoRange nextHiLo(NextHiLoRequest request) {
    return await(async.nextHiLo(request));
  }

  /**
   * Gives back a range's unused tail (raw; generators do this on close).
   *
   * @param tag the tag
   * @param end the range's high end
   * @param last the highest number used
   * @param grantId the range's grant id
   * @return whether the numbers went back
   */
  public boolean returnHiLo(String tag, long end, long last, String grantId) {
    return await(async.returnHiLo(tag, end, last, grantId));
  }

  /**
   * Raises a tag's HiLo Max.
   *
   * @param tag the tag
   * @param max the Max
   * @return the Max afterwards
   */
  public long seedHiLo(String tag, long max) {
    return await(async.seedHiLo(tag, max));
  }

  /**
   * One page of HiLo tags.
   *
   * @param request the page
   * @return the page
   */
  public ListHiLoResponse listHiLo(ListHiLoRequest request) {
    return await(async.listHiLo(request));
  }

  /**
   * Forwards to {@link WorkerCalls#acquire}.
   *
   * @param request see {@link WorkerCalls#acquire}
   * @return see {@link WorkerCalls#acquire}
   * @deprecated use {@code client.workers().acquire}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public WorkerLease acquireWorker(AcquireWorkerRequest request) {
    return this.workers.acquire(request);
  }

  /**
   * Forwards to {@link WorkerCalls#renew}.
   *
   * @param request see {@link WorkerCalls#renew}
   * @return see {@link WorkerCalls#renew}
   * @deprecated use {@code client.workers().renew}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public WorkerLease renewWorker(RenewWorkerRequest request) {
    return this.workers.renew(request);
  }

  /**
   * Forwards to {@link WorkerCalls#release}.
   *
   * @param request see {@link WorkerCalls#release}
   * @deprecated use {@code client.workers().release}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public void releaseWorker(ReleaseWorkerRequest request) {
    this.workers.release(request);
  }

  /**
   * Forwards to {@link WorkerCalls#list}.
   *
   * @param request see {@link WorkerCalls#list}
   * @return see {@link WorkerCalls#list}
   * @deprecated use {@code client.workers().list}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public ListWorkersResponse listWorkers(ListWorkersRequest request) {
    return this.workers.list(request);
  }

  /**
   * Says what an ID is.
   *
   * @param id the ID
   * @return the explanation
   */
  public ExplainResponse explain(String id) {
    return await(async.explain(id));
  }

  /**
   * Says what an ID of a database is; see {@link AsyncIdnodeClient#explain(String, String)}.
   *
   * @param id the ID
   * @param database the database whose opaque setting reads the ID; empty for the client's
   * @return the explanation
   */
  public ExplainResponse explain(String id, String database) {
    return await(async.explain(id, database));
  }

  /**
   * Forwards to {@link SeriesCalls#create}.
   *
   * @param request see {@link SeriesCalls#create}
   * @return see {@link SeriesCalls#create}
   * @deprecated use {@code client.series().create}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public Series createSeries(CreateSeriesRequest request) {
    return this.series.create(request);
  }

  /**
   * Forwards to {@link SeriesCalls#list}.
   *
   * @return see {@link SeriesCalls#list}
   * @deprecated use {@code client.series().list}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public List<Series> listSeries() {
    return this.series.list();
  }

  /**
   * Forwards to {@link SeriesCalls#issue}.
   *
   * @param request see {@link SeriesCalls#issue}
   * @return see {@link SeriesCalls#issue}
   * @deprecated use {@code client.series().issue}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public SeriesEntry issue(IssueRequest request) {
    return this.series.issue(request);
  }

  /**
   * Forwards to {@link SeriesCalls#voidNumber}.
   *
   * @param request see {@link SeriesCalls#voidNumber}
   * @return see {@link SeriesCalls#voidNumber}
   * @deprecated use {@code client.series().voidNumber}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public SeriesEntry voidNumber(VoidRequest request) {
    return this.series.voidNumber(request);
  }

  /**
   * Forwards to {@link SeriesCalls#verify}.
   *
   * @param series see {@link SeriesCalls#verify}
   * @return see {@link SeriesCalls#verify}
   * @deprecated use {@code client.series().verify}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public VerifySeriesResponse verifySeries(String series) {
    return this.series.verify(series);
  }

  /**
   * Forwards to {@link SeriesCalls#journal}.
   *
   * @param series see {@link SeriesCalls#journal}
   * @param from see {@link SeriesCalls#journal}
   * @param to see {@link SeriesCalls#journal}
   * @return see {@link SeriesCalls#journal}
   * @deprecated use {@code client.series().journal}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public List<SeriesEntry> journal(String series, long from, long to) {
    return this.series.journal(series, from, to);
  }

  /**
   * Forwards to {@link AdminCalls#status}.
   *
   * @param consistent see {@link AdminCalls#status}
   * @return see {@link AdminCalls#status}
   * @deprecated use {@code client.admin().status}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public StatusResponse status(boolean consistent) {
    return this.admin.status(consistent);
  }

  /**
   * Forwards to {@link AdminCalls#whoAmI}.
   *
   * @return see {@link AdminCalls#whoAmI}
   * @deprecated use {@code client.admin().whoAmI}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public WhoAmIResponse whoAmI() {
    return this.admin.whoAmI();
  }

  /**
   * Forwards to {@link DatabaseCalls#create}.
   *
   * @param request see {@link DatabaseCalls#create}
   * @deprecated use {@code client.databases().create}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public void createDatabase(CreateDatabaseRequest request) {
    this.databases.create(request);
  }

  /**
   * Turns collections of a database opaque, for good (admin); see
   * {@link AsyncIdnodeClient#makeOpaque}.
   *
   * @param database the database; empty for {@code default}
   * @param collections the identity collections
   * @param numeric whether the database's numeric IDs turn opaque too
   * @return the database's whole opaque setting
   */
  public OpaqueStatus makeOpaque(String database, List<String> collections, boolean numeric) {
    return await(async.makeOpaque(database, collections, numeric));
  }

  /**
   * Forwards to {@link DatabaseCalls#list}.
   *
   * @return see {@link DatabaseCalls#list}
   * @deprecated use {@code client.databases().list}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public List<DatabaseStatus> listDatabases() {
    return this.databases.list();
  }

  /**
   * Forwards to {@link DatabaseCalls#createKey}.
   *
   * @param database see {@link DatabaseCalls#createKey}
   * @param role see {@link DatabaseCalls#createKey}
   * @return see {@link DatabaseCalls#createKey}
   * @deprecated use {@code client.databases().createKey}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public ApiKey createKey(String database, String role) {
    return this.databases.createKey(database, role);
  }

  /**
   * Forwards to {@link DatabaseCalls#deleteKey}.
   *
   * @param id see {@link DatabaseCalls#deleteKey}
   * @deprecated use {@code client.databases().deleteKey}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public void deleteKey(String id) {
    this.databases.deleteKey(id);
  }

  /**
   * Forwards to {@link DatabaseCalls#listKeys}.
   *
   * @return see {@link DatabaseCalls#listKeys}
   * @deprecated use {@code client.databases().listKeys}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public List<KeyStatus> listKeys() {
    return this.databases.listKeys();
  }

  /**
   * Forwards to {@link DatabaseCalls#delete}.
   *
   * @param name see {@link DatabaseCalls#delete}
   * @param force see {@link DatabaseCalls#delete}
   * @deprecated use {@code client.databases().delete}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public void deleteDatabase(String name, boolean force) {
    this.databases.delete(name, force);
  }

  /**
   * Forwards to {@link AdminCalls#releaseOwner}.
   *
   * @param owner see {@link AdminCalls#releaseOwner}
   * @return see {@link AdminCalls#releaseOwner}
   * @deprecated use {@code client.admin().releaseOwner}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public long releaseOwner(String owner) {
    return this.admin.releaseOwner(owner);
  }

  /**
   * Forwards to {@link AdminCalls#addNode}.
   *
   * @param request see {@link AdminCalls#addNode}
   * @return see {@link AdminCalls#addNode}
   * @deprecated use {@code client.admin().addNode}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public AddNodeResponse addNode(AddNodeRequest request) {
    return this.admin.addNode(request);
  }

  /**
   * Forwards to {@link AdminCalls#removeNode}.
   *
   * @param tag see {@link AdminCalls#removeNode}
   * @deprecated use {@code client.admin().removeNode}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public void removeNode(String tag) {
    this.admin.removeNode(tag);
  }

  /**
   * Forwards to {@link AdminCalls#transferLeadership}.
   *
   * @param tag see {@link AdminCalls#transferLeadership}
   * @return see {@link AdminCalls#transferLeadership}
   * @deprecated use {@code client.admin().transferLeadership}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public String transferLeadership(String tag) {
    return this.admin.transferLeadership(tag);
  }

  /**
   * Forwards to {@link AdminCalls#clusterVersion}.
   *
   * @return see {@link AdminCalls#clusterVersion}
   * @deprecated use {@code client.admin().clusterVersion}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public ClusterVersionResponse clusterVersion() {
    return this.admin.clusterVersion();
  }

  /**
   * Forwards to {@link AdminCalls#setClusterVersion}.
   *
   * @param version see {@link AdminCalls#setClusterVersion}
   * @return see {@link AdminCalls#setClusterVersion}
   * @deprecated use {@code client.admin().setClusterVersion}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public ClusterVersionResponse setClusterVersion(int version) {
    return this.admin.setClusterVersion(version);
  }

  /**
   * Forwards to {@link AdminCalls#backup}.
   *
   * @param out see {@link AdminCalls#backup}
   * @return see {@link AdminCalls#backup}
   * @deprecated use {@code client.admin().backup}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public BackupInfo backup(OutputStream out) {
    return this.admin.backup(out);
  }

  /**
   * Forwards to {@link AdminCalls#restore}.
   *
   * @param in see {@link AdminCalls#restore}
   * @return see {@link AdminCalls#restore}
   * @deprecated use {@code client.admin().restore}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public RestoreResponse restore(InputStream in) {
    return this.admin.restore(in);
  }

  /**
   * Forwards to {@link AdminCalls#restore}.
   *
   * @param in see {@link AdminCalls#restore}
   * @param ahead see {@link AdminCalls#restore}
   * @return see {@link AdminCalls#restore}
   * @deprecated use {@code client.admin().restore}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public RestoreResponse restore(InputStream in, RestoreMargin ahead) {
    return this.admin.restore(in, ahead);
  }

  /**
   * A HiLo ID of {@code collection}, such as {@code orders/17-A}, from the collection's
   * generator (made on first use, closed with the client). Normally a few nanoseconds: the
   * numbers come from a range reserved in advance and the next range is fetched in the
   * background; the first call of a collection waits for its first range.
   *
   * @param collection the HiLo tag
   * @return the ID
   */
  public String nextId(String collection) {
    return generators.hilo(collection).nextId(async.deadline());
  }

  /**
   * The HiLo generator {@link #nextId} uses for {@code tag} (made on first use, closed with
   * the client). It stays the client's: its {@code close()} does nothing, so a
   * {@code try}-with-resources block around it leaves {@link #nextId} working.
   * {@link HiLoGenerator#create} makes one of your own.
   *
   * @param tag the HiLo tag
   * @return its generator
   */
  public HiLoGenerator hiloGenerator(String tag) {
    return generators.hilo(tag);
  }

  /**
   * Fills in the ID of an entity, an object with a {@code String} field named {@code id} (or,
   * failing that, {@code Id} or {@code ID}) in its class or a superclass, by what the field
   * holds, the way the Go client's AssignID does:
   *
   * <ul>
   *   <li>null or empty: a HiLo ID of the entity's collection, {@code nextId(collection)}, such
   *       as {@code orders/1-A}; the collection is {@link CollectionNames#of} of the entity's
   *       class unless {@link Builder#collectionName} said otherwise;
   *   <li>ending with the separator or {@code |} ({@code orders/}, {@code orders|}): resolved by
   *       the server (a server-side ID or an identity), such as {@code orders/1};
   *   <li>anything else: kept as it is, once checked ({@link InvalidRequestException} when it
   *       is not a valid document ID, the field left as it was).
   * </ul>
   *
   * @param entity the entity; its ID field may be private, but not final (a record's is)
   * @return the ID the field holds afterwards
   * @throws IllegalArgumentException when the entity has no such field, or its class no
   *     collection name
   */
  public String assignId(Object entity) {
    return assignId(entity, false, "");
  }

  /**
   * {@link #assignId(Object)}, claiming a semantic ID the entity holds already (such as
   * {@code users/ayende}) cluster-wide for {@code owner}, so that the ID is the caller's alone.
   *
   * @param entity the entity
   * @param owner who holds the claim, empty for nobody in particular
   * @return the ID the field holds afterwards
   * @throws AlreadyExistsException (reason {@code CLAIMED}) when someone else holds the ID
   */
  public String assignAndClaimId(Object entity, String owner) {
    return assignId(entity, true, owner);
  }

  private String assignId(Object entity, boolean claim, String claimOwner) {
    Field field = idField(entity);
    String id;
    try {
      id = (String) field.get(entity);
    } catch (IllegalAccessException e) {
      throw new IllegalArgumentException("assignId: cannot read " + field, e);
    }
    if (id == null || id.isEmpty()) {
      String collection = collectionName.apply(entity.getClass());
      if (collection == null || collection.isEmpty()) {
        throw new IllegalArgumentException("assignId: no collection name for " + entity.getClass().getName()
            + "; give the builder a collectionName");
      }
      id = nextId(collection);
    } else if (id.endsWith("|") || id.charAt(id.length() - 1) == async.separator()) {
      List<String> ids = generate(id, 1);
      if (ids.size() != 1) {
        throw IdnodeException.create(Status.Code.INTERNAL, "INVALID_ANSWER", Map.of(), "generate(\"" + id + "\") returned " + ids.size() + " IDs, want 1", null);
      }
      id = ids.get(0);
    } else {
      Validation.documentId(id);
      if (claim) {
        claim(claimOwner, List.of(id));
      }
      return id;
    }
    try {
      field.set(entity, id);
    } catch (IllegalAccessException e) {
      throw new IllegalArgumentException("assignId: cannot set " + field, e);
    }
    return id;
  }

  /** The entity's ID field: a String field id, Id or ID, the nearest class first, made accessible. */
  private static Field idField(Object entity) {
    Objects.requireNonNull(entity, "entity");
    for (Class<?> c = entity.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (String name : List.of("id", "Id", "ID")) {
        Field f;
        try {
          f = c.getDeclaredField(name);
        } catch (NoSuchFieldException e) {
          continue;
        }
        if (Modifier.isStatic(f.getModifiers())) {
          continue;
        }
        if (f.getType() != String.class) {
          throw new IllegalArgumentException("assignId: field " + c.getName() + "." + name + " is a " + f.getType().getName() + ", want a String");
        }
        if (Modifier.isFinal(f.getModifiers())) {
          throw new IllegalArgumentException("assignId: field " + c.getName() + "." + name + " is final, so its ID cannot be filled in");
        }
        if (!f.trySetAccessible()) {
          throw new IllegalArgumentException("assignId: field " + c.getName() + "." + name
              + " is not accessible: open its package to the module dev.idnode.client");
        }
        return f;
      }
    }
    throw new IllegalArgumentException("assignId: " + entity.getClass().getName() + " has no id, Id or ID field");
  }

  /**
   * A new numeric-ID generator on a worker leased from this client's database (see
   * {@link NumericGenerator}). The caller closes it; the client closes it too.
   *
   * @param options layout, lease and margin
   * @return the generator, minting
   */
  public NumericGenerator numericGenerator(NumericOptions options) {
    return generators.numeric(options);
  }

  /**
   * Gives back every HiLo number its generators did not hand out, releases its numeric
   * generators' workers, then closes the connections. Calls after close fail with
   * {@link ClientClosedException}. On a view from {@link #withDeadline} it does nothing.
   *
   * <p>It takes at most the close timeout ({@link Builder#closeTimeout}, 2 s by default) and
   * throws nothing for what no node took back by then: those HiLo numbers are gaps, counted in
   * {@link #unreturned()} and logged as warnings, and a worker not released is logged and
   * lapses by itself.
   */
  @Override
  public void close() {
    if (owner) {
      long end = System.nanoTime() + closeTimeout.toNanos();
      try {
        generators.close(end);
      } finally {
        async.transport().close(end);
      }
    }
  }

  /**
   * The HiLo numbers close could not give back because no node took them within its bound (each
   * range also logged): gaps, which HiLo allows. Generators from {@link HiLoGenerator#create}
   * count theirs in their own {@link HiLoGenerator#stats()}.
   *
   * @return how many numbers
   */
  public long unreturned() {
    return generators.unreturned();
  }

  /** Waits for a call, rethrowing its failure on the caller's thread. */
  static <T> T await(CompletableFuture<T> f) {
    try {
      return f.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IdnodeException ie) {
        // The exception was made on a gRPC thread, and may be shared by every caller of a
        // folded call: each caller gets a copy saying where it waited.
        throw ie.forCaller();
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      f.cancel(true);
      Thread.currentThread().interrupt();
      throw IdnodeException.create(Status.Code.CANCELLED, Status.Code.CANCELLED.name(), Map.of(), "interrupted while waiting for idnode", e);
    }
  }

  static Duration checkDeadline(Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("deadline must be positive, got " + d);
    }
    return d;
  }

  /** Configures an {@link IdnodeClient}. */
  public static final class Builder {
    private final List<String> nodes = new ArrayList<>();
    private Path caFile;
    private Path certFile;
    private Path keyFile;
    private boolean tls;
    private SslContext sslContext;
    private final List<ClientInterceptor> interceptors = new ArrayList<>();
    private String bearer;
    private String database;
    private Duration callTimeout = Duration.ofSeconds(3);
    private Duration deadline = Duration.ofSeconds(30);
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private Backoff backoff = Backoff.DEFAULT;
    private boolean inOrder;
    private String region;
    private Map<String, String> nodeRegions;
    private LongSupplier clock = System::nanoTime;
    private Deadline.Ticker deadlineTicker = Deadline.getSystemTicker();
    private char separator = '/';
    private Function<Class<?>, String> collectionName = CollectionNames::of;

    private Builder() {}

    /**
     * The nodes to use, {@code host:port} of their gRPC listeners: any subset of the cluster.
     *
     * @param addrs the addresses
     * @return this
     */
    public Builder nodes(String... addrs) {
      return nodes(List.of(addrs));
    }

    /**
     * The nodes to use.
     *
     * @param addrs the addresses
     * @return this
     */
    public Builder nodes(List<String> addrs) {
      for (String a : addrs) {
        if (a == null || a.isBlank() || a.lastIndexOf(':') <= 0) {
          throw new IllegalArgumentException("node address must be host:port, got \"" + a + "\"");
        }
        nodes.add(a);
      }
      return this;
    }

    /**
     * Serve over TLS, trusting the CA certificates in {@code caPem} (null: the JVM's roots).
     *
     * @param caPem PEM file of the CA, or null
     * @return this
     */
    public Builder tls(Path caPem) {
      this.tls = true;
      this.caFile = caPem;
      return this;
    }

    /**
     * Present a client certificate (mutual TLS); implies {@link #tls}. The key is PKCS#8 PEM.
     *
     * @param certPem the certificate chain
     * @param keyPem its private key
     * @return this
     */
    public Builder clientCertificate(Path certPem, Path keyPem) {
      this.tls = true;
      this.certFile = Objects.requireNonNull(certPem, "certPem");
      this.keyFile = Objects.requireNonNull(keyPem, "keyPem");
      return this;
    }

    /**
     * Serve over TLS with a netty context of your own, instead of {@link #tls} and
     * {@link #clientCertificate}: for keys in a keystore or a hardware module, or a provider
     * of your choice. Build it with {@code GrpcSslContexts.forClient()}, so that it negotiates
     * HTTP/2 by ALPN.
     *
     * @param context the client context
     * @return this
     */
    public Builder sslContext(SslContext context) {
      this.sslContext = Objects.requireNonNull(context, "context");
      return this;
    }

    /**
     * Run these interceptors around every call to a node, each attempt of a retried call
     * included: for tracing, metrics or headers of your own (OpenTelemetry's grpc-java
     * instrumentation plugs in here; see the README). The first in the list runs first. They
     * see the client's own headers (credential, database) already set.
     *
     * @param interceptors the interceptors, added to any given before
     * @return this
     */
    public Builder interceptors(List<? extends ClientInterceptor> interceptors) {
      for (ClientInterceptor i : interceptors) {
        this.interceptors.add(Objects.requireNonNull(i, "interceptor"));
      }
      return this;
    }

    /**
     * Run these interceptors around every call to a node; see {@link #interceptors(List)}.
     *
     * @param interceptors the interceptors
     * @return this
     */
    public Builder interceptors(ClientInterceptor... interceptors) {
      return interceptors(List.of(interceptors));
    }

    /**
     * Send an API key ({@code idctl key create}) as {@code authorization: Bearer}. Once a cluster
     * has keys, ID calls need one of their database: pair it with {@link #database}. Over
     * plaintext the key crosses the network in clear: use TLS off loopback.
     *
     * @param key the secret
     * @return this
     */
    public Builder apiKey(String key) {
      return bearer(key, "apiKey");
    }

    /**
     * Send the cluster's admin token ({@code idnode --admin-token}), which admin calls need.
     *
     * @param token the token
     * @return this
     */
    public Builder adminToken(String token) {
      return bearer(token, "adminToken");
    }

    private Builder bearer(String secret, String what) {
      if (secret == null || secret.isBlank() || secret.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
        throw new IllegalArgumentException(what + " must be printable ASCII without spaces");
      }
      if (bearer != null) {
        throw new IllegalArgumentException("give an API key or an admin token, not both: a call carries one credential");
      }
      bearer = secret;
      return this;
    }

    /**
     * Work in this database (its own identities, HiLo tags, request ids); default {@code default}.
     *
     * @param name 1–64 ASCII letters, digits, '-', '_' or '.', starting with a letter or digit
     * @return this
     */
    public Builder database(String name) {
      if (name == null || !DATABASE.matcher(name).matches()) {
        throw new IllegalArgumentException("database name must be 1-64 ASCII letters, digits, '-', '_' or '.', starting with a letter or digit; got \"" + name + "\"");
      }
      database = name;
      return this;
    }

    /**
     * Bound each attempt on one node (default 3 s); when it passes, the next node is tried.
     *
     * @param timeout positive
     * @return this
     */
    public Builder callTimeout(Duration timeout) {
      this.callTimeout = checkDeadline(timeout);
      return this;
    }

    /**
     * Bound every call, retries included (default 30 s). {@link IdnodeClient#withDeadline}
     * overrides it for some calls.
     *
     * @param deadline positive
     * @return this
     */
    public Builder deadline(Duration deadline) {
      this.deadline = checkDeadline(deadline);
      return this;
    }

    /**
     * Bound {@link IdnodeClient#close} (default {@link IdnodeClient#DEFAULT_CLOSE_TIMEOUT}, 2 s):
     * what no node took back by then is logged and left a gap.
     *
     * @param timeout positive
     * @return this
     */
    public Builder closeTimeout(Duration timeout) {
      this.closeTimeout = checkDeadline(timeout);
      return this;
    }

    /**
     * The wait between rounds of attempts.
     *
     * @param backoff the backoff
     * @return this
     */
    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /**
     * Start every call at the first node and fail over in the order given, instead of at a
     * random node (which spreads many clients): for an operator's tool.
     *
     * @param inOrder whether to
     * @return this
     */
    public Builder nodesInOrder(boolean inOrder) {
      this.inOrder = inOrder;
      return this;
    }

    /**
     * The client's region and each node's ({@code idnode --region}), so that calls any node
     * answers (server-side IDs, GUIDs, semantic IDs, HiLo ranges, explain, status) go to a
     * node of the client's region, to another of its region when that one fails, and to other
     * regions only when none of its own answers; identities, claims and series still go to the
     * leader, wherever it is. A node that could not be reached is tried last for a second.
     *
     * @param region the client's region: 1-64 letters, digits, '-', '_' or '.'
     * @param nodeRegions each node address's region, as given to {@link #nodes}; a node left out
     *     is in another region. At least one node must be in {@code region}.
     * @return this
     */
    public Builder region(String region, Map<String, String> nodeRegions) {
      RegionRouting.checkLabels(region, nodeRegions);
      this.region = region;
      this.nodeRegions = Map.copyOf(nodeRegions);
      return this;
    }

    /**
     * The clock the region routing times a node's pause with, and the client its distrust of a
     * hint naming a leader that failed: a test's seam.
     */
    Builder clock(LongSupplier nanoTime) {
      this.clock = Objects.requireNonNull(nanoTime, "nanoTime");
      return this;
    }

    /**
     * The clock calls' deadlines pass on: a test's seam, apart from {@link #clock}, so that a
     * test can pass a deadline on an event rather than wait for it.
     */
    Builder deadlineTicker(Deadline.Ticker ticker) {
      this.deadlineTicker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * The cluster's identity parts separator (default {@code /}), which HiLo tags are checked
     * against.
     *
     * @param separator one printable character other than {@code |}
     * @return this
     */
    public Builder separator(char separator) {
      this.separator = Validation.separator(separator);
      return this;
    }

    /**
     * How {@link IdnodeClient#assignId} names an entity's collection (the HiLo tag of its new
     * IDs); default {@link CollectionNames#of}.
     *
     * @param name the collection of a class, empty for none
     * @return this
     */
    public Builder collectionName(Function<Class<?>, String> name) {
      this.collectionName = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Connects (lazily: the first call dials).
     *
     * @return the client
     */
    public IdnodeClient build() {
      if (nodes.isEmpty()) {
        throw new IllegalStateException("give the client at least one node address (Builder.nodes)");
      }
      ChannelCredentials creds = credentials();
      // grpc-java runs a channel's interceptors last given first; the caller's list reads in
      // the order they run.
      List<ClientInterceptor> chain = new ArrayList<>(interceptors);
      java.util.Collections.reverse(chain);
      RegionRouting regions = region == null ? null : new RegionRouting(nodes, region, nodeRegions, inOrder, clock);
      Transport transport = new Transport(nodes, addr -> dial(addr, creds, chain), bearer, database, callTimeout, backoff, inOrder, regions, deadlineTicker,
          clock);
      AsyncIdnodeClient async = new AsyncIdnodeClient(transport, deadline, separator);
      return new IdnodeClient(async, new Generators(async), collectionName, true, closeTimeout);
    }

    private ChannelCredentials credentials() {
      if (sslContext != null) {
        if (tls) {
          throw new IllegalStateException("give the client either an SslContext or tls/clientCertificate files, not both");
        }
        return NettySslContextChannelCredentials.create(sslContext);
      }
      return tls ? Tls.credentials(caFile, certFile, keyFile) : InsecureChannelCredentials.create();
    }

    private static ManagedChannel dial(String addr, ChannelCredentials creds, List<ClientInterceptor> interceptors) {
      // The client retries on its own terms (Transport): grpc-java's retries would only wrap
      // every call in a buffering stream, a cost on each call for nothing.
      ManagedChannelBuilder<?> b = Grpc.newChannelBuilder(addr, creds).disableRetry();
      b.intercept(interceptors);
      if (b instanceof NettyChannelBuilder netty) {
        // Fixed HTTP/2 windows, as the Go client's (internal/flowcontrol): grpc-java otherwise
        // sizes them with a bandwidth-delay estimator that sends a PING with every answer of
        // small calls, a frame each end must read and answer, for no larger window.
        netty.flowControlWindow(FLOW_CONTROL_WINDOW);
      }
      return b.build();
    }
  }
}
