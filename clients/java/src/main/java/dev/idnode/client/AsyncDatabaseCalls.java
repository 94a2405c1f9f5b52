package dev.idnode.client;

import dev.idnode.client.Transport.Route;
import dev.idnode.v1.ClusterServiceGrpc;
import dev.idnode.v1.CreateDatabaseRequest;
import dev.idnode.v1.CreateKeyRequest;
import dev.idnode.v1.DatabaseStatus;
import dev.idnode.v1.DeleteDatabaseRequest;
import dev.idnode.v1.DeleteKeyRequest;
import dev.idnode.v1.KeyStatus;
import dev.idnode.v1.ListDatabasesRequest;
import dev.idnode.v1.ListKeysRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The calls that manage databases and their API keys (admin calls), without blocking;
 * {@link DatabaseCalls} is the blocking face. Those that change the cluster go to another node
 * only when the first certainly did nothing.
 *
 * <p>Reached from {@link AsyncIdnodeClient#databases()}; it shares that view's connections and
 * deadline, and is as thread-safe.
 */
public final class AsyncDatabaseCalls {
  private final AsyncIdnodeClient client;
  private final Transport transport;

  AsyncDatabaseCalls(AsyncIdnodeClient client) {
    this.client = client;
    this.transport = client.transport();
  }

  /**
   * Creates a database (an admin call). Tried on another node only when the first certainly
   * did nothing.
   *
   * @param request the database and its limits
   * @return completes when created
   */
  public CompletableFuture<Void> create(CreateDatabaseRequest request) {
    return transport.unary(Route.ANY, ClusterServiceGrpc.getCreateDatabaseMethod(), request, client.deadlineNow(), true).thenApply(a -> null);
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
  public CompletableFuture<Void> delete(String name, boolean force) {
    DeleteDatabaseRequest req = DeleteDatabaseRequest.newBuilder().setName(name).setForce(force).build();
    return transport.unary(Route.ANY, ClusterServiceGrpc.getDeleteDatabaseMethod(), req, client.deadlineNow(), true).thenApply(a -> null);
  }

  /** The databases, {@code default} among them. @return the databases */
  public CompletableFuture<List<DatabaseStatus>> list() {
    return client.call(Route.ANY, ClusterServiceGrpc.getListDatabasesMethod(), ListDatabasesRequest.getDefaultInstance())
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
    return transport.unary(Route.ANY, ClusterServiceGrpc.getCreateKeyMethod(), req, client.deadlineNow(), true)
        .thenApply(a -> new ApiKey(a.value().getId(), a.value().getKey()));
  }

  /**
   * Deletes an API key (an admin call).
   *
   * @param id the key's id
   * @return completes when deleted
   */
  public CompletableFuture<Void> deleteKey(String id) {
    return transport.unary(Route.ANY, ClusterServiceGrpc.getDeleteKeyMethod(), DeleteKeyRequest.newBuilder().setId(id).build(), client.deadlineNow(), true)
        .thenApply(a -> null);
  }

  /** The API keys, without their secrets (an admin call). @return the keys */
  public CompletableFuture<List<KeyStatus>> listKeys() {
    return client.call(Route.ANY, ClusterServiceGrpc.getListKeysMethod(), ListKeysRequest.getDefaultInstance())
        .thenApply(r -> List.copyOf(r.getKeysList()));
  }
}
