package dev.idnode.client.tour;

import dev.idnode.client.AlreadyExistsException;
import dev.idnode.client.HiLoGenerator;
import dev.idnode.client.HiLoOptions;
import dev.idnode.client.IdentityBlock;
import dev.idnode.client.IdnodeClient;
import dev.idnode.client.NumericGenerator;
import dev.idnode.client.NumericIds;
import dev.idnode.client.NumericOptions;
import dev.idnode.client.Reasons;
import dev.idnode.client.UnavailableException;
import java.time.Duration;
import java.util.List;

/** The README's tour, runnable: {@code Tour.main(node addresses...)}; TourTest runs it. */
public final class Tour {
  private Tour() {}

  /**
   * Runs the tour against the nodes given.
   *
   * @param nodes gRPC addresses of idnode nodes
   */
  public static void main(String[] nodes) {
    // tour:start
    try (IdnodeClient client = IdnodeClient.builder()
        .nodes(nodes)                                   // any subset of the cluster
        .deadline(Duration.ofSeconds(10))               // every call, retries included
        .build()) {

      // HiLo: a range is reserved once, then IDs cost an atomic increment.
      String order = client.nextId("orders");           // "orders/1-A"

      // The request strings (DESIGN.md, "The five ways to get an ID").
      List<String> users = client.generate("users|", 2);        // ["users/1", "users/2"]
      List<String> serverSide = client.generate("carts/", 1);   // ["carts/0000000000000000001-A"]
      IdentityBlock block = client.nextIdentity("invoices", 10); // 1..10, one Raft entry

      // The same calls without blocking.
      client.async().nextIdentity("invoices", 1)
          .thenAccept(b -> System.out.println("async identity " + b.first()))
          .join();

      // Claims: a semantic ID held once, cluster-wide.
      client.claim("signup", List.of("users/ayende"));
      try {
        client.claim("mallory", List.of("Users/Ayende"));
      } catch (AlreadyExistsException e) {
        System.out.println("refused: " + e.reason());  // CLAIMED, with the owner in the message
      }

      // A generator of its own, closed (and its unused numbers returned) with the block. The
      // client's own, behind nextId, stays open until the client closes.
      try (HiLoGenerator products = HiLoGenerator.create(client, "products", HiLoOptions.DEFAULT)) {
        System.out.println(products.nextId());          // "products/1-A"
      }

      // Numeric IDs minted in-process on a leased worker: no network call per ID.
      try (NumericGenerator numeric = client.numericGenerator(NumericOptions.DEFAULT)) {
        long id = numeric.next();
        System.out.println(id + " " + NumericIds.toBase62(id) + " " + NumericIds.toCrockford(id));
        System.out.println(client.explain(Long.toString(id)).getKind()); // "numeric"
      }

      System.out.println(order + " " + users + " " + serverSide + " " + block.first() + ".." + block.last());
    } catch (UnavailableException e) {
      // The cluster could not serve within the deadline: NO_QUORUM, OUTCOME_UNKNOWN, …
      System.err.println(e.reason() + ": " + e.getMessage() + (Reasons.NO_QUORUM.equals(e.reason()) ? " (a majority is down)" : ""));
    }                                                   // close() returns the HiLo ranges' rest
    // tour:end
  }
}
