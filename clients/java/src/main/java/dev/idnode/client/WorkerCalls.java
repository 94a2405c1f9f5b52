package dev.idnode.client;

import dev.idnode.v1.AcquireWorkerRequest;
import dev.idnode.v1.ListWorkersRequest;
import dev.idnode.v1.ListWorkersResponse;
import dev.idnode.v1.ReleaseWorkerRequest;
import dev.idnode.v1.RenewWorkerRequest;
import dev.idnode.v1.WorkerLease;

/**
 * The worker leases' calls, in the client's database, which a {@link NumericGenerator} makes for
 * itself.
 *
 * <p>Reached from {@link IdnodeClient#workers()}; it shares the client's connections, deadline and
 * close, and is as thread-safe.
 */
public final class WorkerCalls {
  private final AsyncWorkerCalls async;

  WorkerCalls(AsyncWorkerCalls async) {
    this.async = async;
  }

  /**
   * Leases a worker (raw; {@link IdnodeClient#numericGenerator} does this for you).
   *
   * @param request the request
   * @return the lease
   */
  public WorkerLease acquire(AcquireWorkerRequest request) {
    return IdnodeClient.await(async.acquire(request));
  }

  /**
   * Renews a worker lease.
   *
   * @param request the request
   * @return the lease
   */
  public WorkerLease renew(RenewWorkerRequest request) {
    return IdnodeClient.await(async.renew(request));
  }

  /**
   * Releases a worker lease.
   *
   * @param request the request
   */
  public void release(ReleaseWorkerRequest request) {
    IdnodeClient.await(async.release(request));
  }

  /**
   * One page of workers.
   *
   * @param request the page
   * @return the page
   */
  public ListWorkersResponse list(ListWorkersRequest request) {
    return IdnodeClient.await(async.list(request));
  }}
