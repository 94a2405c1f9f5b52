package dev.idnode.client;

import dev.idnode.client.Transport.Route;
import dev.idnode.v1.CreateSeriesRequest;
import dev.idnode.v1.IssueRequest;
import dev.idnode.v1.JournalRequest;
import dev.idnode.v1.ListSeriesRequest;
import dev.idnode.v1.Series;
import dev.idnode.v1.SeriesEntry;
import dev.idnode.v1.SeriesServiceGrpc;
import dev.idnode.v1.VerifySeriesRequest;
import dev.idnode.v1.VerifySeriesResponse;
import dev.idnode.v1.VoidRequest;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The fiscal series' calls, in the client's database, without blocking; {@link SeriesCalls} is
 * the blocking face.
 *
 * <p>Reached from {@link AsyncIdnodeClient#series()}; it shares that view's connections and
 * deadline, and is as thread-safe.
 */
public final class AsyncSeriesCalls {
  private final AsyncIdnodeClient client;
  private final Transport transport;

  AsyncSeriesCalls(AsyncIdnodeClient client) {
    this.client = client;
    this.transport = client.transport();
  }

  /**
   * Creates a fiscal series (an admin key's call once the cluster has keys). Without a request
   * id it gets one, so a retry returns the series rather than {@code ALREADY_EXISTS}.
   *
   * @param request the series
   * @return the series created
   */
  public CompletableFuture<Series> create(CreateSeriesRequest request) {
    CreateSeriesRequest req = request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(AsyncIdnodeClient.newRequestId()).build() : request;
    return client.call(Route.LEADER, SeriesServiceGrpc.getCreateSeriesMethod(), req).thenApply(r -> r.getSeries());
  }

  /** The database's series and where each stands. @return the series */
  public CompletableFuture<List<Series>> list() {
    return client.call(Route.LEADER, SeriesServiceGrpc.getListSeriesMethod(), ListSeriesRequest.getDefaultInstance())
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
    IssueRequest req = request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(AsyncIdnodeClient.newRequestId()).build() : request;
    return client.call(Route.LEADER, SeriesServiceGrpc.getIssueMethod(), req).thenApply(r -> r.getEntry());
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
      VoidRequest req = request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(AsyncIdnodeClient.newRequestId()).build() : request;
      return client.call(Route.LEADER, SeriesServiceGrpc.getVoidMethod(), req).thenApply(r -> r.getEntry());
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
  public CompletableFuture<VerifySeriesResponse> verify(String series) {
    return client.call(Route.LEADER, SeriesServiceGrpc.getVerifySeriesMethod(), VerifySeriesRequest.newBuilder().setSeries(series).build());
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
    }, client.deadlineNow(), false).thenApply(a -> List.copyOf(out));
  }
}
