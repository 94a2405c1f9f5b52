package dev.idnode.client.tour;

import dev.idnode.client.IdentityBlock;
import dev.idnode.client.IdnodeClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The README's "Staying in your region", runnable: {@code RegionTour.main(region,
 * address=region...)} with the client's region, then each node's address and region; TourTest
 * runs it against three nodes in three regions.
 */
public final class RegionTour {
  private RegionTour() {}

  /**
   * Runs the region tour.
   *
   * @param args the client's region, then {@code host:port=region} for each node
   */
  public static void main(String[] args) {
    String region = args[0];
    Map<String, String> nodeRegions = new LinkedHashMap<>();
    for (String node : List.of(args).subList(1, args.length)) {
      int eq = node.lastIndexOf('=');
      nodeRegions.put(node.substring(0, eq), node.substring(eq + 1));
    }
    // region-tour:start
    // region: "west"; nodeRegions: each node's address and --region, e.g.
    // {"10.0.0.1:7070": "east", "10.0.0.2:7070": "west", "10.0.0.3:7070": "south"}
    try (IdnodeClient client = IdnodeClient.builder()
        .nodes(List.copyOf(nodeRegions.keySet()))
        .region(region, nodeRegions)                    // a node left out is in another region
        .build()) {

      // Any node answers these, so a node of the client's region does: no wide-area round trip.
      List<String> carts = client.generate("carts/", 2); // ["carts/…1-B", "carts/…2-B"]: B is west's
      String order = client.nextId("orders");           // "orders/…-B": a range from B's own pool

      // Identities need the leader: they go to the one the nodes name, in whichever region.
      IdentityBlock invoice = client.nextIdentity("invoices", 1);

      System.out.println(carts + " " + order + " invoice " + invoice.first());
    }
    // region-tour:end
  }
}
