package dev.idnode.client;

import dev.idnode.v1.CreateSeriesRequest;
import dev.idnode.v1.IssueRequest;
import dev.idnode.v1.Series;
import dev.idnode.v1.SeriesEntry;
import dev.idnode.v1.VerifySeriesResponse;
import dev.idnode.v1.VoidRequest;
import java.util.List;

/**
 * The fiscal series' calls, in the client's database.
 *
 * <p>Reached from {@link IdnodeClient#series()}; it shares the client's connections, deadline and
 * close, and is as thread-safe.
 */
public final class SeriesCalls {
  private final AsyncSeriesCalls async;

  SeriesCalls(AsyncSeriesCalls async) {
    this.async = async;
  }

  /**
   * Creates a fiscal series.
   *
   * @param request the series
   * @return the series
   */
  public Series create(CreateSeriesRequest request) {
    return IdnodeClient.await(async.create(request));
  }

  /** The database's series. @return the series */
  public List<Series> list() {
    return IdnodeClient.await(async.list());
  }

  /**
   * Issues a series' next number to a document.
   *
   * @param request the request; give it the document's own request id
   * @return the entry
   */
  public SeriesEntry issue(IssueRequest request) {
    return IdnodeClient.await(async.issue(request));
  }

  /**
   * Voids a number.
   *
   * @param request the request
   * @return the entry
   */
  public SeriesEntry voidNumber(VoidRequest request) {
    return IdnodeClient.await(async.voidNumber(request));
  }

  /**
   * Verifies a series' chain.
   *
   * @param series the series
   * @return the verdict
   */
  public VerifySeriesResponse verify(String series) {
    return IdnodeClient.await(async.verify(series));
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
    return IdnodeClient.await(async.journal(series, from, to));
  }}
