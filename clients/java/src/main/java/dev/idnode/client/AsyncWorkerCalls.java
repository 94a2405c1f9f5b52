package dev.idnode.client;

import dev.idnode.client.Transport.Route;
import dev.idnode.v1.AcquireWorkerRequest;
import dev.idnode.v1.IdServiceGrpc;
import dev.idnode.v1.ListWorkersRequest;
import dev.idnode.v1.ListWorkersResponse;
import dev.idnode.v1.ReleaseWorkerRequest;
import dev.idnode.v1.RenewWorkerRequest;
import dev.idnode.v1.WorkerLease;
import java.util.concurrent.CompletableFuture;

/**
 * The worker leases' calls, in the client's database, without blocking, which a
 * {@link NumericGenerator} makes for itself; {@link WorkerCalls} is the blocking face.
 *
 * <p>Reached from {@link AsyncIdnodeClient#workers()}; it shares that view's connections and
 * deadline, and is as thread-safe.
 */
public final class AsyncWorkerCalls {
  private final AsyncIdnodeClient client;

  AsyncWorkerCalls(AsyncIdnodeClient client) {
    this.client = client;
  }

  /**
   * Leases a worker ID for minting numeric IDs (see {@link NumericGenerator}). Without a
   * request id it gets one, so a retry after a lost answer gets the same lease.
   *
   * @param request the request
   * @return the lease
   */
  public CompletableFuture<WorkerLease> acquire(AcquireWorkerRequest request) {
    AcquireWorkerRequest req = request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(AsyncIdnodeClient.newRequestId()).build() : request;
    return client.call(Route.LEADER, IdServiceGrpc.getAcquireWorkerMethod(), req);
  }

  /**
   * Extends a worker lease; {@code FAILED_PRECONDITION} means the worker went to another holder.
   *
   * @param request the request
   * @return the renewed lease
   */
  public CompletableFuture<WorkerLease> renew(RenewWorkerRequest request) {
    return client.call(Route.LEADER, IdServiceGrpc.getRenewWorkerMethod(), request);
  }

  /**
   * Ends a worker lease now.
   *
   * @param request the request
   * @return completes when released
   */
  public CompletableFuture<Void> release(ReleaseWorkerRequest request) {
    return client.call(Route.LEADER, IdServiceGrpc.getReleaseWorkerMethod(), request).thenApply(r -> null);
  }

  /**
   * One page of the database's workers.
   *
   * @param request the page wanted
   * @return the page
   */
  public CompletableFuture<ListWorkersResponse> list(ListWorkersRequest request) {
    return client.call(Route.LEADER, IdServiceGrpc.getListWorkersMethod(), request);
  }
}
