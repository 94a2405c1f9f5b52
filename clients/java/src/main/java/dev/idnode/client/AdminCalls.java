package dev.idnode.client;

import dev.idnode.v1.AddNodeRequest;
import dev.idnode.v1.AddNodeResponse;
import dev.idnode.v1.ClusterVersionResponse;
import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.RestoreResponse;
import dev.idnode.v1.StatusResponse;
import dev.idnode.v1.WhoAmIResponse;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The calls that run the cluster: its status, members, leadership, backups, cluster version, and
 * the release of a gone owner's claims. Named for who asks (an operator or a tool) rather than for
 * the admin token: {@link #status}, {@link #whoAmI} and {@link #clusterVersion} need none.
 *
 * <p>Reached from {@link IdnodeClient#admin()}; it shares the client's connections, deadline and
 * close, and is as thread-safe.
 */
public final class AdminCalls {
  private final AsyncAdminCalls async;

  AdminCalls(AsyncAdminCalls async) {
    this.async = async;
  }

  /**
   * The cluster's status.
   *
   * @param consistent confirm leadership first
   * @return the status
   */
  public StatusResponse status(boolean consistent) {
    return IdnodeClient.await(async.status(consistent));
  }

  /** What the node makes of this client's credentials. @return the answer */
  public WhoAmIResponse whoAmI() {
    return IdnodeClient.await(async.whoAmI());
  }

  /**
   * Registers a node and makes it a Raft member (an admin call).
   *
   * @param request the node
   * @return the node as registered
   */
  public AddNodeResponse addNode(AddNodeRequest request) {
    return IdnodeClient.await(async.addNode(request));
  }

  /**
   * Takes a node out of the cluster and retires its tag (an admin call).
   *
   * @param tag the node's tag
   */
  public void removeNode(String tag) {
    IdnodeClient.await(async.removeNode(tag));
  }

  /**
   * Hands leadership to a node (an admin call).
   *
   * @param tag the new leader's tag, or empty for any up-to-date voter
   * @return the new leader's tag
   */
  public String transferLeadership(String tag) {
    return IdnodeClient.await(async.transferLeadership(tag));
  }

  /**
   * Writes a backup to {@code out} (an admin call; see {@link AsyncAdminCalls#backup}).
   *
   * @param out where the backup goes, not closed
   * @return who took it, what it covers and its size
   */
  public BackupInfo backup(OutputStream out) {
    return IdnodeClient.await(async.backup(out));
  }

  /**
   * Restores a backup from {@code in} (an admin call; see {@link AsyncAdminCalls#restore}).
   *
   * @param in the backup, not closed
   * @return what was raised and what the backup held
   */
  public RestoreResponse restore(InputStream in) {
    return IdnodeClient.await(async.restore(in));
  }

  /**
   * Restores a backup from {@code in}, the margin {@code ahead} above its values (an admin call;
   * see {@link AsyncAdminCalls#restore(InputStream, RestoreMargin)}).
   *
   * @param in the backup, not closed
   * @param ahead the margin; {@code RestoreMargin.getDefaultInstance()} for none
   * @return what was raised and what the backup held, the margin applied and what it skipped
   */
  public RestoreResponse restore(InputStream in, RestoreMargin ahead) {
    return IdnodeClient.await(async.restore(in, ahead));
  }

  /** The cluster version. @return the versions */
  public ClusterVersionResponse clusterVersion() {
    return IdnodeClient.await(async.clusterVersion());
  }

  /**
   * Finalises or lowers the cluster version (an admin call).
   *
   * @param version the version
   * @return the versions afterwards
   */
  public ClusterVersionResponse setClusterVersion(int version) {
    return IdnodeClient.await(async.setClusterVersion(version));
  }

  /**
   * Gives back every ID {@code owner} claimed.
   *
   * @param owner the holder
   * @return how many were released
   */
  public long releaseOwner(String owner) {
    return IdnodeClient.await(async.releaseOwner(owner));
  }}
