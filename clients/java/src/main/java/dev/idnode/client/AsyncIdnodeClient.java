package dev.idnode.client;

import dev.idnode.client.Transport.Route;
import dev.idnode.v1.ClusterServiceGrpc;
import dev.idnode.v1.AddNodeRequest;
import dev.idnode.v1.AddNodeResponse;
import dev.idnode.v1.ClusterVersionResponse;
import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.RestoreResponse;
import dev.idnode.v1.IdServiceGrpc;
import dev.idnode.v1.AcquireWorkerRequest;
import dev.idnode.v1.ClaimRequest;
import dev.idnode.v1.CreateDatabaseRequest;
import dev.idnode.v1.CreateSeriesRequest;
import dev.idnode.v1.ExplainRequest;
import dev.idnode.v1.MakeOpaqueRequest;
import dev.idnode.v1.OpaqueStatus;
import dev.idnode.v1.ExplainResponse;
import dev.idnode.v1.GenerateRequest;
import dev.idnode.v1.GetClaimsRequest;
import dev.idnode.v1.IssueRequest;
import dev.idnode.v1.KeyStatus;
import dev.idnode.v1.DatabaseStatus;
import dev.idnode.v1.ListHiLoRequest;
import dev.idnode.v1.ListHiLoResponse;
import dev.idnode.v1.ListIdentitiesRequest;
import dev.idnode.v1.ListWorkersRequest;
import dev.idnode.v1.ListWorkersResponse;
import dev.idnode.v1.NextHiLoRequest;
import dev.idnode.v1.NextIdentityRequest;
import dev.idnode.v1.NextIdentityResponse;
import dev.idnode.v1.ReleaseRequest;
import dev.idnode.v1.ReleaseWorkerRequest;
import dev.idnode.v1.RenewWorkerRequest;
import dev.idnode.v1.ReturnHiLoRequest;
import dev.idnode.v1.SeedHiLoRequest;
import dev.idnode.v1.SeedIdentityRequest;
import dev.idnode.v1.Series;
import dev.idnode.v1.SeriesEntry;
import dev.idnode.v1.StatusResponse;
import dev.idnode.v1.VerifySeriesResponse;
import dev.idnode.v1.VoidRequest;
import dev.idnode.v1.WhoAmIResponse;
import dev.idnode.v1.WorkerLease;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * The non-blocking face of {@link IdnodeClient}: the same calls, each returning a
 * {@link CompletableFuture} that fails with an {@link IdnodeException}. Get one with
 * {@link IdnodeClient#async()}; it shares the client's connections, so closing the client ends
 * it too. Futures complete on gRPC's threads: chain heavy work with the {@code *Async} stages.
 * As on {@link IdnodeClient}, the view keeps the data path and reaches the calls that run the
 * cluster through its parts: {@link #admin()}, {@link #series()}, {@link #databases()} and
 * {@link #workers()}.
 *
 * <p>Every call fails over as {@link IdnodeClient} describes, within the deadline this view was
 * made with ({@link #withDeadline}).
 */
public final class AsyncIdnodeClient {
  private final Transport transport;
  private final Duration deadline;
  private final char separator;
  /** Concurrent single identities, shared by every view of the client (IdentityFold). */
  private final IdentityFold fold;
  private final AsyncAdminCalls admin;
  private final AsyncSeriesCalls series;
  private final AsyncDatabaseCalls databases;
  private final AsyncWorkerCalls workers;

  AsyncIdnodeClient(Transport transport, Duration deadline, char separator) {
    this.transport = transport;
    this.deadline = deadline;
    this.separator = separator;
    this.fold = new IdentityFold(this::sendFolded, transport.timer());
    this.admin = new AsyncAdminCalls(this);
    this.series = new AsyncSeriesCalls(this);
    this.databases = new AsyncDatabaseCalls(this);
    this.workers = new AsyncWorkerCalls(this);
  }

  private AsyncIdnodeClient(AsyncIdnodeClient from, Duration deadline) {
    this.transport = from.transport;
    this.deadline = deadline;
    this.separator = from.separator;
    this.fold = from.fold;
    this.admin = new AsyncAdminCalls(this);
    this.series = new AsyncSeriesCalls(this);
    this.databases = new AsyncDatabaseCalls(this);
    this.workers = new AsyncWorkerCalls(this);
  }

  /**
   * This client with every call bounded by {@code deadline}, retries included. It shares the
   * connections.
   *
   * @param deadline how long a call may take in all, positive
   * @return the view
   */
  public AsyncIdnodeClient withDeadline(Duration deadline) {
    return new AsyncIdnodeClient(this, IdnodeClient.checkDeadline(deadline));
  }

  /** The deadline every call of this view gets. */
  public Duration deadline() {
    return deadline;
  }

  /** The identity parts separator the client checks HiLo tags against. */
  public char separator() {
    return separator;
  }

  Transport transport() {
    return transport;
  }

  /**
   * The calls that run the cluster: status, members, leadership, backups, cluster version and
   * {@code releaseOwner}.
   *
   * @return the part, sharing this view's connections and deadline
   */
  public AsyncAdminCalls admin() {
    return admin;
  }

  /** The fiscal series' calls. @return the part, sharing this view's connections and deadline */
  public AsyncSeriesCalls series() {
    return series;
  }

  /** The calls that manage databases and API keys. @return the part, sharing this view's connections and deadline */
  public AsyncDatabaseCalls databases() {
    return databases;
  }

  /** The worker leases' calls. @return the part, sharing this view's connections and deadline */
  public AsyncWorkerCalls workers() {
    return workers;
  }

  /**
   * Resolves a request string (a semantic ID is echoed, {@code ""} gives UUIDv7s,
   * {@code "prefix/"} server-side IDs, {@code "prefix|"} identities).
   *
   * @param id the request string
   * @param count how many IDs, 0 meaning 1
   * @return the IDs
   */
  public CompletableFuture<List<String>> generate(String id, long count) {
    return generate(GenerateRequest.newBuilder().setId(id).setCount(count).build());
  }

  /**
   * {@link #generate(String, long)} with every field (a UUIDv4, a request id of the caller's, a
   * claim, numeric IDs). An identity or claim request without a request id gets one, kept
   * across retries.
   *
   * @param request the request
   * @return the IDs
   */
  public CompletableFuture<List<String>> generate(GenerateRequest request) {
    try {
      Validation.count(request.getCount());
      boolean reserves = request.getId().endsWith("|") || request.getClaim();
      GenerateRequest req = reserves && request.getRequestId().isEmpty()
          ? request.toBuilder().setRequestId(newRequestId()).build() : request;
      return call(reserves ? Route.LEADER : Route.ANY, IdServiceGrpc.getGenerateMethod(), req)
          .thenApply(r -> List.copyOf(r.getIdsList()));
    } catch (IdnodeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Reserves {@code count} values of the identity counter {@code name}. Every retry carries the
   * same request id, so a retry never burns values. Concurrent calls for one value of the same
   * counter share one call: those made while the counter's last call is out go together in the
   * next, and its block is split among them in arrival order (each value still follows every
   * call that returned before its own began).
   *
   * @param name the counter
   * @param count how many values, 0 meaning 1
   * @return the block
   */
  public CompletableFuture<IdentityBlock> nextIdentity(String name, long count) {
    return nextIdentity(name, count, "");
  }

  /**
   * {@link #nextIdentity(String, long)} with a request id of the caller's, kept with the work
   * it numbers: a call repeated after a crash then answers the values the first one reserved.
   *
   * @param name the counter
   * @param count how many values, 0 meaning 1
   * @param requestId the request id, empty to make one
   * @return the block
   */
  public CompletableFuture<IdentityBlock> nextIdentity(String name, long count, String requestId) {
    return nextIdentity(name, count, requestId, true);
  }

  /**
   * {@link #nextIdentity(String, long, String)}, where handOff says how a folded call's answer
   * reaches the future: through the client's callback threads, since a caller's own stages may
   * block, or, for a thread that only waits for the future (the blocking client), straight from
   * the event loop that read it, with no thread in between.
   */
  CompletableFuture<IdentityBlock> nextIdentity(String name, long count, String requestId, boolean handOff) {
    try {
      Validation.count(count);
      if (count <= 1 && requestId.isEmpty()) {
        // A thread that only waits for the future (handOff false) relays the batch's answers.
        CompletableFuture<IdentityBlock> block = fold.next(name, deadlineNow(), !handOff);
        return handOff ? transport.handOff(block) : block;
      }
      return sendIdentities(transport.unary(Route.LEADER, IdServiceGrpc.getNextIdentityMethod(),
          identityRequest(name, count, requestId.isEmpty() ? newRequestId() : requestId), deadlineNow(), false));
    } catch (IdnodeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * One folded NextIdentity call (IdentityFold): it completes on the event loop that read its
   * answer, where the fold hands the values to its waiting callers and sends the next call.
   */
  private CompletableFuture<IdentityBlock> sendFolded(String name, long count, String requestId, Deadline deadline) {
    return sendIdentities(transport.unaryOnEventLoop(Route.LEADER, IdServiceGrpc.getNextIdentityMethod(),
        identityRequest(name, count, requestId), deadline));
  }

  private static NextIdentityRequest identityRequest(String name, long count, String requestId) {
    return NextIdentityRequest.newBuilder().setName(name).setCount(count).setRequestId(requestId).build();
  }

  /** The block of one NextIdentity call; cancelling it cancels the call. */
  private static CompletableFuture<IdentityBlock> sendIdentities(CompletableFuture<Transport.Answer<NextIdentityResponse>> call) {
    CompletableFuture<IdentityBlock> block = call.thenApply(a -> {
      NextIdentityResponse r = a.value();
      return new IdentityBlock(r.getFirst(), r.getLast(), r.getSkippedList());
    });
    block.whenComplete((b, e) -> {
      if (e instanceof CancellationException) {
        call.cancel(false);
      }
    });
    return block;
  }

  /**
   * Raises the identity counter {@code name} to {@code value} (with {@code force}, sets it
   * exactly: an operator's call).
   *
   * @param name the counter
   * @param value the value, not negative
   * @param force set even if that lowers it
   * @return the counter afterwards; the next identity is that + 1
   */
  public CompletableFuture<Long> seedIdentity(String name, long value, boolean force) {
    try {
      Validation.nonNegative("seed value", value);
      SeedIdentityRequest req = SeedIdentityRequest.newBuilder().setName(name).setValue(value).setForce(force).build();
      return call(Route.LEADER, IdServiceGrpc.getSeedIdentityMethod(), req).thenApply(r -> r.getValue());
    } catch (IdnodeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Every identity counter whose name starts with {@code prefix} (case-insensitive), all pages,
   * linearizably per page.
   *
   * @param prefix the prefix, empty for all
   * @return the counters, by name
   */
  public CompletableFuture<List<Identity>> listIdentities(String prefix) {
    List<Identity> out = new ArrayList<>();
    return listIdentitiesFrom(prefix, "", out).thenApply(v -> List.copyOf(out));
  }

  private CompletableFuture<Void> listIdentitiesFrom(String prefix, String token, List<Identity> out) {
    ListIdentitiesRequest req = ListIdentitiesRequest.newBuilder().setPrefix(prefix).setPageToken(token).build();
    return call(Route.LEADER, IdServiceGrpc.getListIdentitiesMethod(), req).thenCompose(page -> {
      page.getIdentitiesList().forEach(i -> out.add(new Identity(i.getName(), i.getValue())));
      String next = page.getNextPageToken();
      if (next.isEmpty() || next.equals(token) || page.getIdentitiesCount() == 0) {
        return CompletableFuture.completedFuture(null);
      }
      return listIdentitiesFrom(prefix, next, out);
    });
  }

  /**
   * Claims semantic IDs cluster-wide for {@code owner}, all or nothing: {@link AlreadyExistsException}
   * (reason {@code CLAIMED}) when someone holds one. Retries reuse the call's request id.
   *
   * @param owner who holds them, empty for nobody in particular
   * @param ids at most 1,000 IDs
   * @return completes when claimed
   */
  public CompletableFuture<Void> claim(String owner, List<String> ids) {
    return claim(owner, ids, "");
  }

  /**
   * {@link #claim(String, List)} with a request id of the caller's: repeated after a crash it
   * succeeds again instead of finding its own claims.
   *
   * @param owner who holds them
   * @param ids the IDs
   * @param requestId the request id, empty to make one
   * @return completes when claimed
   */
  public CompletableFuture<Void> claim(String owner, List<String> ids, String requestId) {
    ClaimRequest req = ClaimRequest.newBuilder().addAllIds(ids).setOwner(owner)
        .setRequestId(requestId.isEmpty() ? newRequestId() : requestId).build();
    return call(Route.LEADER, IdServiceGrpc.getClaimMethod(), req).thenApply(r -> null);
  }

  /**
   * Releases claimed IDs, all or nothing. With an owner, an ID someone else claimed fails the
   * call ({@code FAILED_PRECONDITION}).
   *
   * @param owner whose claims, empty for anybody's
   * @param ids the IDs
   * @return how many were claimed and are released now
   */
  public CompletableFuture<Long> release(String owner, List<String> ids) {
    return release(owner, ids, "");
  }

  /**
   * {@link #release(String, List)} with the caller's request id. A retry after a lost answer
   * carries it, so that it answers the first attempt's count, not 0 for IDs released by then
   * (from cluster version 8; before, a retry may answer 0).
   *
   * @param owner whose claims, empty for anybody's
   * @param ids the IDs
   * @param requestId the request id, empty to make one
   * @return how many were claimed and are released now
   */
  public CompletableFuture<Long> release(String owner, List<String> ids, String requestId) {
    ReleaseRequest req = ReleaseRequest.newBuilder().addAllIds(ids).setOwner(owner)
        .setRequestId(requestId.isEmpty() ? newRequestId() : requestId).build();
    return call(Route.LEADER, IdServiceGrpc.getReleaseMethod(), req).thenApply(r -> r.getReleased());
  }

  /**
   * Looks IDs up, linearizably.
   *
   * @param ids the IDs
   * @return the claims of those claimed
   */
  public CompletableFuture<List<Claim>> getClaims(List<String> ids) {
    GetClaimsRequest req = GetClaimsRequest.newBuilder().addAllIds(ids).build();
    return call(Route.LEADER, IdServiceGrpc.getGetClaimsMethod(), req)
        .thenApply(r -> r.getClaimsList().stream().map(c -> new Claim(c.getId(), c.getOwner())).toList());
  }

  /**
   * Reserves a HiLo range (the raw call behind {@link HiLoGenerator}). Without a request id it
   * gets one, kept across retries.
   *
   * @param request the request
   * @return the range
   */
  public CompletableFuture<HiLoRange> nextHiLo(NextHiLoRequest request) {
    return nextHiLo(request, new Refusals());
  }

  /** {@link #nextHiLo(NextHiLoRequest)} whose failed attempts go to refusals (a generator's waiting callers read them). */
  CompletableFuture<HiLoRange> nextHiLo(NextHiLoRequest request, Refusals refusals) {
    try {
      Validation.hiloTag(request.getTag(), request.getSeparator().isEmpty() ? separator : request.getSeparator().charAt(0));
      Validation.nonNegative("last_batch_size", request.getLastBatchSize());
      Validation.nonNegative("last_max", request.getLastMax());
      NextHiLoRequest req = request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(newRequestId()).build() : request;
      return transport.unary(Route.HILO, IdServiceGrpc.getNextHiLoMethod(), req, deadlineNow(), false, refusals).thenApply(a -> {
        var r = a.value();
        transport.rememberGrant(r.getGrantId(), a.node());
        return new HiLoRange(r.getPrefix(), r.getLow(), r.getHigh(), r.getLastSize(), r.getServerTag(), r.getLastRangeAt(), r.getGrantId());
      });
    } catch (IdnodeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Gives back the unused tail {@code last+1..end} of a range. It goes first to the node that
   * granted the range when this client fetched it: with HiLo pools only that node takes it.
   *
   * @param tag the range's tag
   * @param end the range's high end
   * @param last the highest number used; {@code low - 1} returns the range whole
   * @param grantId the range's grant id
   * @return whether the numbers went back (false: the range is not the newest any more, a gap)
   */
  public CompletableFuture<Boolean> returnHiLo(String tag, long end, long last, String grantId) {
    // One request id for every attempt: a retry of a return that took effect answers true, as
    // the first attempt did, not false because the range is no longer the newest.
    ReturnHiLoRequest req = ReturnHiLoRequest.newBuilder().setTag(tag).setEnd(end).setLast(last).setGrantId(grantId)
        .setRequestId(newRequestId()).build();
    Integer granter = transport.granter(grantId);
    int[] order = granter != null ? transport.orderFrom(granter) : transport.order(Route.LEADER);
    return transport.call(order, Transport.unaryAttempt(IdServiceGrpc.getReturnHiLoMethod(), req), deadlineNow(), false)
        .thenApply(a -> a.value().getReturned());
  }

  /**
   * Raises a tag's HiLo Max so the next range starts above it (moving from RavenDB or another
   * store); never lowers it.
   *
   * @param tag the tag
   * @param max the Max, not negative
   * @return the Max afterwards
   */
  public CompletableFuture<Long> seedHiLo(String tag, long max) {
    try {
      Validation.nonNegative("hilo max", max);
      SeedHiLoRequest req = SeedHiLoRequest.newBuilder().setTag(tag).setMax(max).build();
      return call(Route.LEADER, IdServiceGrpc.getSeedHiLoMethod(), req).thenApply(r -> r.getMax());
    } catch (IdnodeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * One page of the database's HiLo tags, with each node's pool.
   *
   * @param request the page wanted
   * @return the page
   */
  public CompletableFuture<ListHiLoResponse> listHiLo(ListHiLoRequest request) {
    return call(Route.LEADER, IdServiceGrpc.getListHiLoMethod(), request);
  }

  /**
   * Forwards to {@link AsyncWorkerCalls#acquire}.
   *
   * @param request see {@link AsyncWorkerCalls#acquire}
   * @return see {@link AsyncWorkerCalls#acquire}
   * @deprecated use {@code async.workers().acquire}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<WorkerLease> acquireWorker(AcquireWorkerRequest request) {
    return this.workers.acquire(request);
  }

  /**
   * Forwards to {@link AsyncWorkerCalls#renew}.
   *
   * @param request see {@link AsyncWorkerCalls#renew}
   * @return see {@link AsyncWorkerCalls#renew}
   * @deprecated use {@code async.workers().renew}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<WorkerLease> renewWorker(RenewWorkerRequest request) {
    return this.workers.renew(request);
  }

  /**
   * Forwards to {@link AsyncWorkerCalls#release}.
   *
   * @param request see {@link AsyncWorkerCalls#release}
   * @return see {@link AsyncWorkerCalls#release}
   * @deprecated use {@code async.workers().release}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<Void> releaseWorker(ReleaseWorkerRequest request) {
    return this.workers.release(request);
  }

  /**
   * Forwards to {@link AsyncWorkerCalls#list}.
   *
   * @param request see {@link AsyncWorkerCalls#list}
   * @return see {@link AsyncWorkerCalls#list}
   * @deprecated use {@code async.workers().list}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<ListWorkersResponse> listWorkers(ListWorkersRequest request) {
    return this.workers.list(request);
  }

  /**
   * Says what an ID is (numeric: time, worker, sequence; a string: the strategy that minted
   * it). Any node answers.
   *
   * @param id the ID
   * @return the explanation
   */
  public CompletableFuture<ExplainResponse> explain(String id) {
    return explain(id, "");
  }

  /**
   * Says what an ID of a database is: an opaque form of that database is {@code opaque} in the
   * answer, its value filled for an admin only; a string under an opaque collection that is no
   * form of the database is an {@link InvalidRequestException} with
   * {@link Reasons#NOT_OPAQUE_FORM}. Any node answers.
   *
   * @param id the ID
   * @param database the database whose opaque setting reads the ID; empty for the client's
   * @return the explanation
   */
  public CompletableFuture<ExplainResponse> explain(String id, String database) {
    ExplainRequest req = ExplainRequest.newBuilder().setId(id).setDatabase(database).build();
    return call(Route.ANY, IdServiceGrpc.getExplainMethod(), req);
  }

  /**
   * Forwards to {@link AsyncSeriesCalls#create}.
   *
   * @param request see {@link AsyncSeriesCalls#create}
   * @return see {@link AsyncSeriesCalls#create}
   * @deprecated use {@code async.series().create}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<Series> createSeries(CreateSeriesRequest request) {
    return this.series.create(request);
  }

  /**
   * Forwards to {@link AsyncSeriesCalls#list}.
   *
   * @return see {@link AsyncSeriesCalls#list}
   * @deprecated use {@code async.series().list}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<List<Series>> listSeries() {
    return this.series.list();
  }

  /**
   * Forwards to {@link AsyncSeriesCalls#issue}.
   *
   * @param request see {@link AsyncSeriesCalls#issue}
   * @return see {@link AsyncSeriesCalls#issue}
   * @deprecated use {@code async.series().issue}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<SeriesEntry> issue(IssueRequest request) {
    return this.series.issue(request);
  }

  /**
   * Forwards to {@link AsyncSeriesCalls#voidNumber}.
   *
   * @param request see {@link AsyncSeriesCalls#voidNumber}
   * @return see {@link AsyncSeriesCalls#voidNumber}
   * @deprecated use {@code async.series().voidNumber}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<SeriesEntry> voidNumber(VoidRequest request) {
    return this.series.voidNumber(request);
  }

  /**
   * Forwards to {@link AsyncSeriesCalls#verify}.
   *
   * @param series see {@link AsyncSeriesCalls#verify}
   * @return see {@link AsyncSeriesCalls#verify}
   * @deprecated use {@code async.series().verify}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<VerifySeriesResponse> verifySeries(String series) {
    return this.series.verify(series);
  }

  /**
   * Forwards to {@link AsyncSeriesCalls#journal}.
   *
   * @param series see {@link AsyncSeriesCalls#journal}
   * @param from see {@link AsyncSeriesCalls#journal}
   * @param to see {@link AsyncSeriesCalls#journal}
   * @return see {@link AsyncSeriesCalls#journal}
   * @deprecated use {@code async.series().journal}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<List<SeriesEntry>> journal(String series, long from, long to) {
    return this.series.journal(series, from, to);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#status}.
   *
   * @param consistent see {@link AsyncAdminCalls#status}
   * @return see {@link AsyncAdminCalls#status}
   * @deprecated use {@code async.admin().status}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<StatusResponse> status(boolean consistent) {
    return this.admin.status(consistent);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#whoAmI}.
   *
   * @return see {@link AsyncAdminCalls#whoAmI}
   * @deprecated use {@code async.admin().whoAmI}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<WhoAmIResponse> whoAmI() {
    return this.admin.whoAmI();
  }

  /**
   * Forwards to {@link AsyncDatabaseCalls#create}.
   *
   * @param request see {@link AsyncDatabaseCalls#create}
   * @return see {@link AsyncDatabaseCalls#create}
   * @deprecated use {@code async.databases().create}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<Void> createDatabase(CreateDatabaseRequest request) {
    return this.databases.create(request);
  }

  /**
   * Turns collections of a database opaque, and with numeric its numeric IDs, for good (an
   * admin call): {@code generate("orders|", n)} then answers forms such as
   * {@code orders/KC6HECSWE6SX7} that hide the counter's values, and {@code nextIdentity} on
   * them is refused with {@link Reasons#OPAQUE_COLLECTION}. The leader makes the database's key
   * the first time; it is never sent to a client. Calling it again with the same or more
   * collections only adds, so it is retried like a read.
   *
   * @param database the database; empty for {@code default}
   * @param collections the identity collections (the prefix of {@code "prefix|"})
   * @param numeric whether the database's numeric IDs turn opaque too
   * @return the database's whole opaque setting: its collections as stored (folded, sorted) and
   *     the key's fingerprint
   */
  public CompletableFuture<OpaqueStatus> makeOpaque(String database, List<String> collections, boolean numeric) {
    MakeOpaqueRequest req = MakeOpaqueRequest.newBuilder().setDatabase(database).addAllCollections(collections)
        .setNumeric(numeric).build();
    return call(Route.LEADER, ClusterServiceGrpc.getMakeOpaqueMethod(), req);
  }

  /**
   * Forwards to {@link AsyncDatabaseCalls#list}.
   *
   * @return see {@link AsyncDatabaseCalls#list}
   * @deprecated use {@code async.databases().list}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<List<DatabaseStatus>> listDatabases() {
    return this.databases.list();
  }

  /**
   * Forwards to {@link AsyncDatabaseCalls#createKey}.
   *
   * @param database see {@link AsyncDatabaseCalls#createKey}
   * @param role see {@link AsyncDatabaseCalls#createKey}
   * @return see {@link AsyncDatabaseCalls#createKey}
   * @deprecated use {@code async.databases().createKey}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<ApiKey> createKey(String database, String role) {
    return this.databases.createKey(database, role);
  }

  /**
   * Forwards to {@link AsyncDatabaseCalls#deleteKey}.
   *
   * @param id see {@link AsyncDatabaseCalls#deleteKey}
   * @return see {@link AsyncDatabaseCalls#deleteKey}
   * @deprecated use {@code async.databases().deleteKey}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<Void> deleteKey(String id) {
    return this.databases.deleteKey(id);
  }

  /**
   * Forwards to {@link AsyncDatabaseCalls#listKeys}.
   *
   * @return see {@link AsyncDatabaseCalls#listKeys}
   * @deprecated use {@code async.databases().listKeys}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<List<KeyStatus>> listKeys() {
    return this.databases.listKeys();
  }

  /**
   * Forwards to {@link AsyncDatabaseCalls#delete}.
   *
   * @param name see {@link AsyncDatabaseCalls#delete}
   * @param force see {@link AsyncDatabaseCalls#delete}
   * @return see {@link AsyncDatabaseCalls#delete}
   * @deprecated use {@code async.databases().delete}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<Void> deleteDatabase(String name, boolean force) {
    return this.databases.delete(name, force);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#releaseOwner}.
   *
   * @param owner see {@link AsyncAdminCalls#releaseOwner}
   * @return see {@link AsyncAdminCalls#releaseOwner}
   * @deprecated use {@code async.admin().releaseOwner}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<Long> releaseOwner(String owner) {
    return this.admin.releaseOwner(owner);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#addNode}.
   *
   * @param request see {@link AsyncAdminCalls#addNode}
   * @return see {@link AsyncAdminCalls#addNode}
   * @deprecated use {@code async.admin().addNode}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<AddNodeResponse> addNode(AddNodeRequest request) {
    return this.admin.addNode(request);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#removeNode}.
   *
   * @param tag see {@link AsyncAdminCalls#removeNode}
   * @return see {@link AsyncAdminCalls#removeNode}
   * @deprecated use {@code async.admin().removeNode}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<Void> removeNode(String tag) {
    return this.admin.removeNode(tag);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#transferLeadership}.
   *
   * @param tag see {@link AsyncAdminCalls#transferLeadership}
   * @return see {@link AsyncAdminCalls#transferLeadership}
   * @deprecated use {@code async.admin().transferLeadership}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<String> transferLeadership(String tag) {
    return this.admin.transferLeadership(tag);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#clusterVersion}.
   *
   * @return see {@link AsyncAdminCalls#clusterVersion}
   * @deprecated use {@code async.admin().clusterVersion}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<ClusterVersionResponse> clusterVersion() {
    return this.admin.clusterVersion();
  }

  /**
   * Forwards to {@link AsyncAdminCalls#setClusterVersion}.
   *
   * @param version see {@link AsyncAdminCalls#setClusterVersion}
   * @return see {@link AsyncAdminCalls#setClusterVersion}
   * @deprecated use {@code async.admin().setClusterVersion}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<ClusterVersionResponse> setClusterVersion(int version) {
    return this.admin.setClusterVersion(version);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#backup}.
   *
   * @param out see {@link AsyncAdminCalls#backup}
   * @return see {@link AsyncAdminCalls#backup}
   * @deprecated use {@code async.admin().backup}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<BackupInfo> backup(OutputStream out) {
    return this.admin.backup(out);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#restore}.
   *
   * @param in see {@link AsyncAdminCalls#restore}
   * @return see {@link AsyncAdminCalls#restore}
   * @deprecated use {@code async.admin().restore}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<RestoreResponse> restore(InputStream in) {
    return this.admin.restore(in);
  }

  /**
   * Forwards to {@link AsyncAdminCalls#restore}.
   *
   * @param in see {@link AsyncAdminCalls#restore}
   * @param ahead see {@link AsyncAdminCalls#restore}
   * @return see {@link AsyncAdminCalls#restore}
   * @deprecated use {@code async.admin().restore}; this forward goes in the next release
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public CompletableFuture<RestoreResponse> restore(InputStream in, RestoreMargin ahead) {
    return this.admin.restore(in, ahead);
  }

  /** A unary call within this view's deadline, failing over as a read does; the parts' too. */
  <Q, R> CompletableFuture<R> call(Route route, MethodDescriptor<Q, R> method, Q request) {
    return transport.unary(route, method, request, deadlineNow(), false).thenApply(Transport.Answer::value);
  }

  /** The deadline of a call starting now, for this view and its parts. */
  Deadline deadlineNow() {
    return transport.deadlineAfter(deadline);
  }

  /** A request id for one logical call; its retries reuse it. */
  static String newRequestId() {
    return "java-" + UUID.randomUUID();
  }
}
