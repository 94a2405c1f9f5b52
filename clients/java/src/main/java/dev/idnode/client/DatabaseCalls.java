package dev.idnode.client;

import dev.idnode.v1.CreateDatabaseRequest;
import dev.idnode.v1.DatabaseStatus;
import dev.idnode.v1.KeyStatus;
import java.util.List;

/**
 * The calls that manage databases and their API keys (admin calls). Those that change the
 * cluster go to another node only when the first certainly did nothing.
 *
 * <p>Reached from {@link IdnodeClient#databases()}; it shares the client's connections, deadline and
 * close, and is as thread-safe.
 */
public final class DatabaseCalls {
  private final AsyncDatabaseCalls async;

  DatabaseCalls(AsyncDatabaseCalls async) {
    this.async = async;
  }

  /**
   * Creates a database (admin).
   *
   * @param request the database
   */
  public void create(CreateDatabaseRequest request) {
    IdnodeClient.await(async.create(request));
  }

  /**
   * Deletes a database (an admin call).
   *
   * @param name the database
   * @param force delete it although it has counters
   */
  public void delete(String name, boolean force) {
    IdnodeClient.await(async.delete(name, force));
  }

  /** The databases. @return the databases */
  public List<DatabaseStatus> list() {
    return IdnodeClient.await(async.list());
  }

  /**
   * Creates an API key (admin).
   *
   * @param database its database
   * @param role its role
   * @return the key
   */
  public ApiKey createKey(String database, String role) {
    return IdnodeClient.await(async.createKey(database, role));
  }

  /**
   * Deletes an API key (admin).
   *
   * @param id the key's id
   */
  public void deleteKey(String id) {
    IdnodeClient.await(async.deleteKey(id));
  }

  /** The API keys (admin). @return the keys */
  public List<KeyStatus> listKeys() {
    return IdnodeClient.await(async.listKeys());
  }}
