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

  private IdnodeClient(AsyncIdnodeClient async, Generators generators, Function<Class<?>, String> collectionName, boolean owner,
      Duration closeTimeout) {
    this.async = async;
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
   * Leases a worker (raw; {@link #numericGenerator} does this for you).
   *
   * @param request the request
   * @return the lease
   */
  public WorkerLease acquireWorker(AcquireWorkerRequest request) {
    return await(async.acquireWorker(request));
  }

  /**
   * Renews a worker lease.
   *
   * @param request the request
   * @return the lease
   */
  public WorkerLease renewWorker(RenewWorkerRequest request) {
    return await(async.renewWorker(request));
  }

  /**
   * Releases a worker lease.
   *
   * @param request the request
   */
  public void releaseWorker(ReleaseWorkerRequest request) {
    await(async.releaseWorker(request));
  }

  /**
   * One page of workers.
   *
   * @param request the page
   * @return the page
   */
  public ListWorkersResponse listWorkers(ListWorkersRequest request) {
    return await(async.listWorkers(request));
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
   * Creates a fiscal series.
   *
   * @param request the series
   * @return the series
   */
  public Series createSeries(CreateSeriesRequest request) {
    return await(async.createSeries(request));
  }

  /** The database's series. @return the series */
  public List<Series> listSeries() {
    return await(async.listSeries());
  }

  /**
   * Issues a series' next number to a document.
   *
   * @param request the request; give it the document's own request id
   * @return the entry
   */
  public SeriesEntry issue(IssueRequest request) {
    return await(async.issue(request));
  }

  /**
   * Voids a number.
   *
   * @param request the request
   * @return the entry
   */
  public SeriesEntry voidNumber(VoidRequest request) {
    return await(async.voidNumber(request));
  }

  /**
   * Verifies a series' chain.
   *
   * @param series the series
   * @return the verdict
   */
  public VerifySeriesResponse verifySeries(String series) {
    return await(async.verifySeries(series));
  }

  /**
   * A series' journal.
   *
   * @param series the series
   * @param from first seq
   * @param to last seq, 0 for the end
   * @return the entries
   */
  public List<SeriesEntry> journal(String series, long from, long to) {
    return await(async.journal(series, from, to));
  }

  /**
   * The cluster's status.
   *
   * @param consistent confirm leadership first
   * @return the status
   */
  public StatusResponse status(boolean consistent) {
    return await(async.status(consistent));
  }

  /** What the node makes of this client's credentials. @return the answer */
  public WhoAmIResponse whoAmI() {
    return await(async.whoAmI());
  }

  /**
   * Creates a database (admin).
   *
   * @param request the database
   */
  public void createDatabase(CreateDatabaseRequest request) {
    await(async.createDatabase(request));
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

  /** The databases. @return the databases */
  public List<DatabaseStatus> listDatabases() {
    return await(async.listDatabases());
  }

  /**
   * Creates an API key (admin).
   *
   * @param database its database
   * @param role its role
   * @return the key
   */
  public ApiKey createKey(String database, String role) {
    return await(async.createKey(database, role));
  }

  /**
   * Deletes an API key (admin).
   *
   * @param id the key's id
   */
  public void deleteKey(String id) {
    await(async.deleteKey(id));
  }

  /** The API keys (admin). @return the keys */
  public List<KeyStatus> listKeys() {
    return await(async.listKeys());
  }

  /**
   * Deletes a database (an admin call).
   *
   * @param name the database
   * @param force delete it although it has counters
   */
  public void deleteDatabase(String name, boolean force) {
    await(async.deleteDatabase(name, force));
  }

  /**
   * Gives back every ID {@code owner} claimed.
   *
   * @param owner the holder
   * @return how many were released
   */
  public long releaseOwner(String owner) {
    return await(async.releaseOwner(owner));
  }

  /**
   * Registers a node and makes it a Raft member (an admin call).
   *
   * @param request the node
   * @return the node as registered
   */
  public AddNodeResponse addNode(AddNodeRequest request) {
    return await(async.addNode(request));
  }

  /**
   * Takes a node out of the cluster and retires its tag (an admin call).
   *
   * @param tag the node's tag
   */
  public void removeNode(String tag) {
    await(async.removeNode(tag));
  }

  /**
   * Hands leadership to a node (an admin call).
   *
   * @param tag the new leader's tag, or empty for any up-to-date voter
   * @return the new leader's tag
   */
  public String transferLeadership(String tag) {
    return await(async.transferLeadership(tag));
  }

  /** The cluster version. @return the versions */
  public ClusterVersionResponse clusterVersion() {
    return await(async.clusterVersion());
  }

  /**
   * Finalises or lowers the cluster version (an admin call).
   *
   * @param version the version
   * @return the versions afterwards
   */
  public ClusterVersionResponse setClusterVersion(int version) {
    return await(async.setClusterVersion(version));
  }

  /**
   * Writes a backup to {@code out} (an admin call; see {@link AsyncIdnodeClient#backup}).
   *
   * @param out where the backup goes, not closed
   * @return who took it, what it covers and its size
   */
  public BackupInfo backup(OutputStream out) {
    return await(async.backup(out));
  }

  /**
   * Restores a backup from {@code in} (an admin call; see {@link AsyncIdnodeClient#restore}).
   *
   * @param in the backup, not closed
   * @return what was raised and what the backup held
   */
  public RestoreResponse restore(InputStream in) {
    return await(async.restore(in));
  }

  /**
   * Restores a backup from {@code in}, the margin {@code ahead} above its values (an admin call;
   * see {@link AsyncIdnodeClient#restore(InputStream, RestoreMargin)}).
   *
   * @param in the backup, not closed
   * @param ahead the margin; {@code RestoreMargin.getDefaultInstance()} for none
   * @return what was raised and what the backup held, the margin applied and what it skipped
   */
  public RestoreResponse restore(InputStream in, RestoreMargin ahead) {
    return await(async.restore(in, ahead));
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
