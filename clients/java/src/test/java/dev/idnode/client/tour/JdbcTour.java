package dev.idnode.client.tour;

import dev.idnode.client.IdnodeClient;
import dev.idnode.client.IdnodeException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The README's JDBC example, runnable: {@code JdbcTour.main(nodes, jdbcUrl)}, the nodes
 * comma-separated; TourTest runs it against a real node and a private PostgreSQL server.
 */
public final class JdbcTour {
  private JdbcTour() {}

  /**
   * Inserts a hundred orders keyed by HiLo IDs, in one batch, and prints what the table holds.
   *
   * @param args the nodes' gRPC addresses (comma-separated) and a JDBC URL
   * @throws SQLException when PostgreSQL refuses
   */
  public static void main(String[] args) throws SQLException {
    String[] nodes = args[0].split(",");
    String jdbcUrl = args[1];
    // jdbc-tour:start
    try (IdnodeClient client = IdnodeClient.builder().nodes(nodes).build();
        Connection db = DriverManager.getConnection(jdbcUrl)) {
      try (Statement ddl = db.createStatement()) {
        ddl.execute("CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, customer text NOT NULL, total bigint NOT NULL)");
      }

      // One transaction, one batch. Each key is a HiLo ID taken in-process from the client's
      // range for "orders": one round trip per range, none per row.
      db.setAutoCommit(false);
      List<String> ids = new ArrayList<>();
      try (PreparedStatement insert = db.prepareStatement("INSERT INTO orders (id, customer, total) VALUES (?, ?, ?)")) {
        for (int i = 0; i < 100; i++) {
          ids.add(client.nextId("orders"));             // "orders/1-A", "orders/2-A", …
          insert.setString(1, ids.get(i));
          insert.setString(2, "customers/" + (i % 7));
          insert.setLong(3, 100L * i);
          insert.addBatch();
        }
        insert.executeBatch();
        db.commit();
      } catch (SQLException | IdnodeException e) {
        db.rollback();                                // no half-written batch; its IDs go unused
        throw e;
      }

      try (Statement query = db.createStatement();
          ResultSet r = query.executeQuery("SELECT count(*) FROM orders")) {
        r.next();
        System.out.println(r.getLong(1) + " orders, the first " + ids.get(0)); // "100 orders, the first orders/1-A"
      }
    }                                                 // close() returns the range's unused rest
    // jdbc-tour:end
  }
}
