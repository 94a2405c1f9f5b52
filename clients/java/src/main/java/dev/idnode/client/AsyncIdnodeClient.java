package dev.idnode.client;

import dev.idnode.client.Transport.Route;
import dev.idnode.v1.ClusterServiceGrpc;
import dev.idnode.v1.AddNodeRequest;
import dev.idnode.v1.AddNodeResponse;
import dev.idnode.v1.ClusterVersionRequest;
import dev.idnode.v1.ClusterVersionResponse;
import dev.idnode.v1.DeleteDatabaseRequest;
import dev.idnode.v1.ReleaseOwnerRequest;
import dev.idnode.v1.RemoveNodeRequest;
import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.RestoreResponse;
import dev.idnode.v1.SetClusterVersionRequest;
import dev.idnode.v1.TransferLeadershipRequest;
import dev.idnode.v1.IdServiceGrpc;
import dev.idnode.v1.AcquireWorkerRequest;
import dev.idnode.v1.ClaimRequest;
import dev.idnode.v1.CreateDatabaseRequest;
import dev.idnode.v1.CreateKeyRequest;
import dev.idnode.v1.CreateSeriesRequest;
import dev.idnode.v1.DeleteKeyRequest;
import dev.idnode.v1.ExplainRequest;
import dev.idnode.v1.MakeOpaqueRequest;
import dev.idnode.v1.OpaqueStatus;
import dev.idnode.v1.ExplainResponse;
import dev.idnode.v1.GenerateRequest;
import dev.idnode.v1.GetClaimsRequest;
import dev.idnode.v1.IssueRequest;
import dev.idnode.v1.JournalRequest;
import dev.idnode.v1.KeyStatus;
import dev.idnode.v1.ListDatabasesRequest;
import dev.idnode.v1.DatabaseStatus;
import dev.idnode.v1.ListHiLoRequest;
import dev.idnode.v1.ListHiLoResponse;
import dev.idnode.v1.ListIdentitiesRequest;
import dev.idnode.v1.ListKeysRequest;
import dev.idnode.v1.ListSeriesRequest;
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
import dev.idnode.v1.StatusRequest;
import dev.idnode.v1.StatusResponse;
import dev.idnode.v1.VerifySeriesRequest;
import dev.idnode.v1.VerifySeriesResponse;
import dev.idnode.v1.VoidRequest;
import dev.idnode.v1.WhoAmIRequest;
import dev.idnode.v1.WhoAmIResponse;
import dev.idnode.v1.WorkerLease;
import dev.idnode.v1.SeriesServiceGrpc;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
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

  AsyncIdnodeClient(Transport transport, Duration deadline, char separator) {
    this.transport = transport;
    this.deadline = deadline;
    this.separator = separator;
    this.fold = new IdentityFold(this::sendFolded, transport.timer());
  }

  private AsyncIdnodeClient(AsyncIdnodeClient from, Duration deadline) {
    this.transport = from.transport;
    this.deadline = deadline;
    this.separator = from.separator;
    this.fold = from.fold;
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
    ReleaseRequest req = ReleaseRequest.newBuilder().addAllIds(ids).setOwner(owner).build();
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
   * Leases a worker ID for minting numeric IDs (see {@link NumericGenerator}). Without a
   * request id it gets one, so a retry after a lost answer gets the same lease.
   *
   * @param request the request
   * @return the lease
   */
  public CompletableFuture<WorkerLease> acquireWorker(AcquireWorkerRequest request) {
    AcquireWorkerRequest req = request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(newRequestId()).build() : request;
    return call(Route.LEADER, IdServiceGrpc.getAcquireWorkerMethod(), req);
  }

  /**
   * Extends a worker lease; {@code FAILED_PRECONDITION} means the worker went to another holder.
   *
   * @param request the request
   * @return the renewed lease
   */
  public CompletableFuture<WorkerLease> renewWorker(RenewWorkerRequest request) {
    return call(Route.LEADER, IdServiceGrpc.getRenewWorkerMethod(), request);
  }

  /**
   * Ends a worker lease now.
   *
   * @param request the request
   * @return completes when released
   */
  public CompletableFuture<Void> releaseWorker(ReleaseWorkerRequest request) {
    return call(Route.LEADER, IdServiceGrpc.getReleaseWorkerMethod(), request).thenApply(r -> null);
  }

  /**
   * One page of the database's workers.
   *
   * @param request the page wanted
   * @return the page
   */
  public CompletableFuture<ListWorkersResponse> listWorkers(ListWorkersRequest request) {
    return call(Route.LEADER, IdServiceGrpc.getListWorkersMethod(), request);
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
   * Creates a fiscal series (an admin key's call once the cluster has keys). Without a request
   * id it gets one, so a retry returns the series rather than {@code ALREADY_EXISTS}.
   *
   * @param request the series
   * @return the series created
   */
  public CompletableFuture<Series> createSeries(CreateSeriesRequest request) {
    CreateSeriesRequest req = request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(newRequestId()).build() : request;
    return call(Route.LEADER, SeriesServiceGrpc.getCreateSeriesMethod(), req).thenApply(r -> r.getSeries());
  }

  /** The database's series and where each stands. @return the series */
  public CompletableFuture<List<Series>> listSeries() {
    return call(Route.LEADER, SeriesServiceGrpc.getListSeriesMethod(), ListSeriesRequest.getDefaultInstance())
        .thenApply(r -> List.copyOf(r.getSeriesList()));
  }

  /**
   * Issues the next number of a series to a document. Give every document its own request id,
   * kept with it before the call: calling again with it after a crash answers the same number.
   * Without one the client makes one, which covers its own retries only.
   *
   * @param request the request
   * @return the journal entry ({@code getId()} is the number as printed)
   */
  public CompletableFuture<SeriesEntry> issue(IssueRequest request) {
    IssueRequest req = request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(newRequestId()).build() : request;
    return call(Route.LEADER, SeriesServiceGrpc.getIssueMethod(), req).thenApply(r -> r.getEntry());
  }

  /**
   * Records a number as void, with a reason.
   *
   * @param request the request
   * @return the journal entry
   */
  public CompletableFuture<SeriesEntry> voidNumber(VoidRequest request) {
    try {
      Validation.nonNegative("number", request.getNumber());
      VoidRequest req = request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(newRequestId()).build() : request;
      return call(Route.LEADER, SeriesServiceGrpc.getVoidMethod(), req).thenApply(r -> r.getEntry());
    } catch (IdnodeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Recomputes a series' hash chain and numbering on the leader.
   *
   * @param series the series
   * @return the verdict, with the first break
   */
  public CompletableFuture<VerifySeriesResponse> verifySeries(String series) {
    return call(Route.LEADER, SeriesServiceGrpc.getVerifySeriesMethod(), VerifySeriesRequest.newBuilder().setSeries(series).build());
  }

  /**
   * A series' journal entries from seq {@code from} to seq {@code to} (0: the end). A stream
   * cut short is resumed after the last entry received, on another node if need be.
   *
   * @param series the series
   * @param from the first seq, 0 or 1 for the start
   * @param to the last seq, 0 for the end
   * @return the entries, in order
   */
  public CompletableFuture<List<SeriesEntry>> journal(String series, long from, long to) {
    try {
      Validation.nonNegative("from", from);
      Validation.nonNegative("to", to);
    } catch (IdnodeException e) {
      return CompletableFuture.failedFuture(e);
    }
    List<SeriesEntry> out = new ArrayList<>();
    return transport.call(transport.order(Route.LEADER), (channel, options, node) -> {
      long next = out.isEmpty() ? from : out.get(out.size() - 1).getSeq() + 1;
      JournalRequest req = JournalRequest.newBuilder().setSeries(series).setFromSeq(next).setToSeq(to).build();
      CompletableFuture<Void> done = new CompletableFuture<>();
      ClientCalls.asyncServerStreamingCall(channel.newCall(SeriesServiceGrpc.getJournalMethod(), options), req,
          new StreamObserver<SeriesEntry>() {
            @Override
            public void onNext(SeriesEntry e) {
              synchronized (out) {
                out.add(e);
              }
            }

            @Override
            public void onError(Throwable t) {
              done.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
              done.complete(null);
            }
          });
      return done;
    }, deadlineNow(), false).thenApply(a -> List.copyOf(out));
  }

  /**
   * The cluster as the answering node sees it.
   *
   * @param consistent confirm leadership with a quorum first, so the answer is not stale
   * @return the status
   */
  public CompletableFuture<StatusResponse> status(boolean consistent) {
    return call(Route.ANY, ClusterServiceGrpc.getStatusMethod(), StatusRequest.newBuilder().setConsistent(consistent).build());
  }

  /** What the node makes of this client's credentials. @return the answer */
  public CompletableFuture<WhoAmIResponse> whoAmI() {
    return call(Route.ANY, ClusterServiceGrpc.getWhoAmIMethod(), WhoAmIRequest.getDefaultInstance());
  }

  /**
   * Creates a database (an admin call). Tried on another node only when the first certainly
   * did nothing.
   *
   * @param request the database and its limits
   * @return completes when created
   */
  public CompletableFuture<Void> createDatabase(CreateDatabaseRequest request) {
    return transport.unary(Route.ANY, ClusterServiceGrpc.getCreateDatabaseMethod(), request, deadlineNow(), true).thenApply(a -> null);
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

  /** The databases, {@code default} among them. @return the databases */
  public CompletableFuture<List<DatabaseStatus>> listDatabases() {
    return call(Route.ANY, ClusterServiceGrpc.getListDatabasesMethod(), ListDatabasesRequest.getDefaultInstance())
        .thenApply(r -> List.copyOf(r.getDatabasesList()));
  }

  /**
   * Makes an API key (an admin call); the secret is shown only this once. Not tried again once
   * a node may have made it.
   *
   * @param database the key's database
   * @param role {@code reader}, {@code writer} or {@code admin}
   * @return the key's id and secret
   */
  public CompletableFuture<ApiKey> createKey(String database, String role) {
    CreateKeyRequest req = CreateKeyRequest.newBuilder().setDatabase(database).setRole(role).build();
    return transport.unary(Route.ANY, ClusterServiceGrpc.getCreateKeyMethod(), req, deadlineNow(), true)
        .thenApply(a -> new ApiKey(a.value().getId(), a.value().getKey()));
  }

  /**
   * Deletes an API key (an admin call).
   *
   * @param id the key's id
   * @return completes when deleted
   */
  public CompletableFuture<Void> deleteKey(String id) {
    return transport.unary(Route.ANY, ClusterServiceGrpc.getDeleteKeyMethod(), DeleteKeyRequest.newBuilder().setId(id).build(), deadlineNow(), true)
        .thenApply(a -> null);
  }

  /** The API keys, without their secrets (an admin call). @return the keys */
  public CompletableFuture<List<KeyStatus>> listKeys() {
    return call(Route.ANY, ClusterServiceGrpc.getListKeysMethod(), ListKeysRequest.getDefaultInstance())
        .thenApply(r -> List.copyOf(r.getKeysList()));
  }

  /**
   * Deletes a database (an admin call): its calls are refused with {@code NOT_FOUND} after.
   * Without {@code force} it is refused while the database has counters. Tried on another node
   * only when the first certainly did nothing.
   *
   * @param name the database
   * @param force delete it although it has counters (they stay as floors)
   * @return completes when deleted
   */
  public CompletableFuture<Void> deleteDatabase(String name, boolean force) {
    DeleteDatabaseRequest req = DeleteDatabaseRequest.newBuilder().setName(name).setForce(force).build();
    return transport.unary(Route.ANY, ClusterServiceGrpc.getDeleteDatabaseMethod(), req, deadlineNow(), true).thenApply(a -> null);
  }

  /**
   * Gives back every ID {@code owner} claimed in the client's database (cluster version 2).
   *
   * @param owner the holder
   * @return how many were released
   */
  public CompletableFuture<Long> releaseOwner(String owner) {
    return call(Route.LEADER, IdServiceGrpc.getReleaseOwnerMethod(), ReleaseOwnerRequest.newBuilder().setOwner(owner).build())
        .thenApply(r -> r.getReleased());
  }

  /**
   * Registers a node and makes it a Raft member (an admin call). An empty tag lets the cluster
   * assign the next free one; the answer names it. Tried on another node only when the first
   * certainly did nothing: repeated after a lost answer, it would find its addresses taken.
   *
   * @param request the node's tag, addresses and whether it votes
   * @return the node as registered
   */
  public CompletableFuture<AddNodeResponse> addNode(AddNodeRequest request) {
    return transport.unary(Route.ANY, ClusterServiceGrpc.getAddNodeMethod(), request, deadlineNow(), true)
        .thenApply(Transport.Answer::value);
  }

  /**
   * Takes a node out of the cluster and retires its tag for ever (an admin call). Tried on
   * another node only when the first certainly did nothing.
   *
   * @param tag the node's tag
   * @return completes when removed
   */
  public CompletableFuture<Void> removeNode(String tag) {
    return transport.unary(Route.ANY, ClusterServiceGrpc.getRemoveNodeMethod(), RemoveNodeRequest.newBuilder().setTag(tag).build(), deadlineNow(), true)
        .thenApply(a -> null);
  }

  /**
   * Hands leadership to the node with {@code tag}, or to any up-to-date voter when it is empty
   * (an admin call). Tried on another node only when the first certainly did nothing: repeated
   * without a tag, it would move the leadership again.
   *
   * @param tag the new leader's tag, or empty
   * @return the new leader's tag
   */
  public CompletableFuture<String> transferLeadership(String tag) {
    TransferLeadershipRequest req = TransferLeadershipRequest.newBuilder().setTag(tag).build();
    return transport.unary(Route.ANY, ClusterServiceGrpc.getTransferLeadershipMethod(), req, deadlineNow(), true)
        .thenApply(a -> a.value().getLeader());
  }

  /**
   * The cluster version, from the leader: the one finalised, what each member's build
   * supports, and the lowest a downgrade may go to.
   *
   * @return the versions
   */
  public CompletableFuture<ClusterVersionResponse> clusterVersion() {
    return call(Route.ANY, ClusterServiceGrpc.getClusterVersionMethod(), ClusterVersionRequest.getDefaultInstance());
  }

  /**
   * Finalises a higher cluster version once every member supports it, or lowers it while no
   * command of the higher one is in the log (an admin call). Setting a version twice changes
   * nothing, so it fails over like a read.
   *
   * @param version the version
   * @return the versions afterwards
   */
  public CompletableFuture<ClusterVersionResponse> setClusterVersion(int version) {
    return call(Route.ANY, ClusterServiceGrpc.getSetClusterVersionMethod(), SetClusterVersionRequest.newBuilder().setVersion(version).build());
  }

  /**
   * Writes a consistent backup of the cluster's replicated state to {@code out} (an admin
   * call); with {@link IdnodeClient.Builder#database} set, of that database only. The bytes are
   * what {@link #restore} reads. The call timeout bounds the whole transfer from one node; it
   * goes to another node only until the first bytes arrive (after that {@code out} holds part
   * of a backup). {@code out} is written on gRPC's threads and not closed.
   *
   * @param out where the backup goes
   * @return who took it, what it covers and its size
   */
  public CompletableFuture<BackupInfo> backup(OutputStream out) {
    return transport.call(transport.order(Route.LEADER), Backups.backup(out), deadlineNow(), false).thenApply(Transport.Answer::value);
  }

  /**
   * Raises the cluster's identity counters and HiLo maxima to at least those of the backup
   * read from {@code in}, and retires the backup's node tags (an admin call); it never lowers
   * anything, so running it again is safe. The first 256 KiB are read now; it goes to another
   * node only while no more was read. The call timeout bounds the whole transfer to one node.
   * {@code in} is read on gRPC's threads and not closed.
   *
   * @param in the backup
   * @return what was raised and what the backup held
   */
  public CompletableFuture<RestoreResponse> restore(InputStream in) {
    return restore(in, RestoreMargin.getDefaultInstance());
  }

  /**
   * {@link #restore(InputStream)}, setting the counters the margin {@code ahead} above the
   * backup's values, to skip what the backup's cluster issued after the backup was taken
   * (docs/backups.md): each identity counter {@code add + ceil(value × percent / 100)} by
   * {@code ahead.getIdentities()}, each HiLo Max by {@code ahead.getHilo()}. A part below 0 is
   * refused before anything is read or sent. The answer echoes the margin ({@code getAhead()})
   * with the fewest and most numbers it skipped per counter ({@code getIdentitiesSkippedMin()}
   * …); one that does not (a node of an older build on the way) fails with {@link
   * MarginNotAppliedException}, which carries it.
   *
   * @param in the backup
   * @param ahead the margin; {@code RestoreMargin.getDefaultInstance()} for none
   * @return what was raised and what the backup held
   */
  public CompletableFuture<RestoreResponse> restore(InputStream in, RestoreMargin ahead) {
    Transport.Attempt<RestoreResponse> attempt;
    try {
      attempt = Backups.restore(in, RestoreMargins.check(ahead));
    } catch (UncheckedIOException | IdnodeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return transport.call(transport.order(Route.LEADER), attempt, deadlineNow(), false)
        .thenApply(answer -> RestoreMargins.echoed(ahead, answer.value()));
  }

  private <Q, R> CompletableFuture<R> call(Route route, MethodDescriptor<Q, R> method, Q request) {
    return transport.unary(route, method, request, deadlineNow(), false).thenApply(Transport.Answer::value);
  }

  private Deadline deadlineNow() {
    return transport.deadlineAfter(deadline);
  }

  /** A request id for one logical call; its retries reuse it. */
  static String newRequestId() {
    return "java-" + UUID.randomUUID();
  }
}
