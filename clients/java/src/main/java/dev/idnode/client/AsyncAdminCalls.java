package dev.idnode.client;

import dev.idnode.client.Transport.Route;
import dev.idnode.v1.AddNodeRequest;
import dev.idnode.v1.AddNodeResponse;
import dev.idnode.v1.ClusterServiceGrpc;
import dev.idnode.v1.ClusterVersionRequest;
import dev.idnode.v1.ClusterVersionResponse;
import dev.idnode.v1.IdServiceGrpc;
import dev.idnode.v1.ReleaseOwnerRequest;
import dev.idnode.v1.RemoveNodeRequest;
import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.RestoreResponse;
import dev.idnode.v1.SetClusterVersionRequest;
import dev.idnode.v1.StatusRequest;
import dev.idnode.v1.StatusResponse;
import dev.idnode.v1.TransferLeadershipRequest;
import dev.idnode.v1.WhoAmIRequest;
import dev.idnode.v1.WhoAmIResponse;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;

/**
 * The calls that run the cluster, without blocking: its status, members, leadership, backups,
 * cluster version, and the release of a gone owner's claims. Each returns a
 * {@link CompletableFuture} that fails with an {@link IdnodeException}, as the
 * {@link AsyncIdnodeClient}'s calls do; {@link AdminCalls} is the blocking face.
 *
 * <p>Reached from {@link AsyncIdnodeClient#admin()}; it shares that view's connections and
 * deadline, and is as thread-safe.
 */
public final class AsyncAdminCalls {
  private final AsyncIdnodeClient client;
  private final Transport transport;

  AsyncAdminCalls(AsyncIdnodeClient client) {
    this.client = client;
    this.transport = client.transport();
  }

  /**
   * The cluster as the answering node sees it.
   *
   * @param consistent confirm leadership with a quorum first, so the answer is not stale
   * @return the status
   */
  public CompletableFuture<StatusResponse> status(boolean consistent) {
    return client.call(Route.ANY, ClusterServiceGrpc.getStatusMethod(), StatusRequest.newBuilder().setConsistent(consistent).build());
  }

  /** What the node makes of this client's credentials. @return the answer */
  public CompletableFuture<WhoAmIResponse> whoAmI() {
    return client.call(Route.ANY, ClusterServiceGrpc.getWhoAmIMethod(), WhoAmIRequest.getDefaultInstance());
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
    return transport.unary(Route.ANY, ClusterServiceGrpc.getAddNodeMethod(), request, client.deadlineNow(), true)
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
    return transport.unary(Route.ANY, ClusterServiceGrpc.getRemoveNodeMethod(), RemoveNodeRequest.newBuilder().setTag(tag).build(), client.deadlineNow(), true)
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
    return transport.unary(Route.ANY, ClusterServiceGrpc.getTransferLeadershipMethod(), req, client.deadlineNow(), true)
        .thenApply(a -> a.value().getLeader());
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
    return transport.call(transport.order(Route.LEADER), Backups.backup(out), client.deadlineNow(), false).thenApply(Transport.Answer::value);
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
   * MarginNotAppliedException}, which carries it. {@code setByRates(true)} asks the margin
   * {@code idctl restore} takes without {@code --ahead}: each kind left unset goes up by the
   * backup's peak issue rate × its age × 2 (a HiLo tag at least its last range), and the
   * answer's {@code getRates()} say what that assumed; an answer without them fails the same
   * way. Without it, as before, no margin.
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
    return transport.call(transport.order(Route.LEADER), attempt, client.deadlineNow(), false)
        .thenApply(answer -> RestoreMargins.echoed(ahead, answer.value()));
  }

  /**
   * The cluster version, from the leader: the one finalised, what each member's build
   * supports, and the lowest a downgrade may go to.
   *
   * @return the versions
   */
  public CompletableFuture<ClusterVersionResponse> clusterVersion() {
    return client.call(Route.ANY, ClusterServiceGrpc.getClusterVersionMethod(), ClusterVersionRequest.getDefaultInstance());
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
    return client.call(Route.ANY, ClusterServiceGrpc.getSetClusterVersionMethod(), SetClusterVersionRequest.newBuilder().setVersion(version).build());
  }

  /**
   * Gives back every ID {@code owner} claimed in the client's database (cluster version 2).
   *
   * @param owner the holder
   * @return how many were released
   */
  public CompletableFuture<Long> releaseOwner(String owner) {
    return client.call(Route.LEADER, IdServiceGrpc.getReleaseOwnerMethod(), ReleaseOwnerRequest.newBuilder().setOwner(owner).build())
        .thenApply(r -> r.getReleased());
  }
}
