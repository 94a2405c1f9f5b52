package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import com.google.gson.JsonParser;
import dev.idnode.client.tour.JdbcTour;
import dev.idnode.client.tour.RegionTour;
import dev.idnode.client.tour.Tour;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's tours are Tour.java's, RegionTour.java's and JdbcTour.java's, verbatim, and run
 * against real nodes (and JdbcTour against a private PostgreSQL server). PackagedJarIT runs the README's first example, against the packaged jar.
 */
class TourTest {
  /** The text between the first start marker and the end marker after it. */
  static String between(String text, String start, String end) {
    int s = text.indexOf(start);
    int e = text.indexOf(end, s + start.length());
    assertTrue(s >= 0 && e > s, "markers " + start + " … " + end + " not found");
    return text.substring(s + start.length(), e);
  }

  @Test
  void theReadmeShowsTheToursAsTheyRun() throws IOException {
    assertShown("Tour.java", "tour");
    assertShown("RegionTour.java", "region-tour");
    assertShown("JdbcTour.java", "jdbc-tour");
  }

  /** The README holds, between its marker comments, the code between the file's markers. */
  private static void assertShown(String file, String marker) throws IOException {
    String tour = between(Files.readString(Path.of("src/test/java/dev/idnode/client/tour", file)), "// " + marker + ":start\n", "    // " + marker + ":end");
    String readme = between(Files.readString(Path.of("README.md")), "<!-- " + marker + ":start -->\n```java\n", "```\n<!-- " + marker + ":end -->");
    String unindented = tour.lines().map(l -> l.startsWith("    ") ? l.substring(4) : l).collect(Collectors.joining("\n", "", "\n"));
    assertEquals(unindented, readme);
  }

  @Test
  void theTourRuns() throws Exception {
    try (IdCluster cluster = new IdCluster()) {
      cluster.start(1, true);
      String text = printed(() -> Tour.main(cluster.grpcAddrs().toArray(new String[0])));
      assertTrue(text.contains("refused: CLAIMED"), text);
      assertTrue(text.contains("products/1-A"), text);
      assertTrue(text.contains("orders/1-A [users/1, users/2] [carts/0000000000000000001-A] 1..10"), text);
    }
  }

  @Test
  void theRegionTourRunsWithinItsRegion() throws Exception {
    try (IdCluster cluster = new IdCluster()) {
      cluster.start(JsonParser.parseString("{\"nodes\": 3, \"regions\": {\"A\": \"east\", \"B\": \"west\", \"C\": \"south\"}}").getAsJsonObject());
      List<String> args = new ArrayList<>(List.of("west"));
      cluster.regions(cluster.grpcAddrs()).forEach((addr, region) -> args.add(addr + "=" + region));
      String text = printed(() -> RegionTour.main(args.toArray(new String[0])));
      assertTrue(text.matches("(?s)\\[carts/0+1-B, carts/0+2-B\\] orders/[0-9]+-B invoice 1\\s*"), text);
    }
  }

  @Test
  void theJdbcTourInsertsRowsKeyedByHiLoIds() throws Exception {
    try (IdCluster cluster = new IdCluster()) {
      String jdbcUrl = cluster.postgresJdbcUrl();
      cluster.start(1, true);
      String nodes = String.join(",", cluster.grpcAddrs());
      String text = printed(() -> {
        try {
          JdbcTour.main(new String[] {nodes, jdbcUrl});
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      });
      assertEquals("100 orders, the first orders/1-A\n", text);
      // The table holds the hundred keys the client handed out, and the range's rest went back:
      // a second client's first key follows them.
      try (Connection db = DriverManager.getConnection(jdbcUrl);
          Statement query = db.createStatement();
          ResultSet r = query.executeQuery("SELECT id FROM orders")) {
        List<String> ids = new ArrayList<>();
        while (r.next()) {
          ids.add(r.getString(1));
        }
        List<String> want = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
          want.add("orders/" + i + "-A");
        }
        ids.sort(null);
        want.sort(null);
        assertEquals(want, ids);
      }
      try (IdnodeClient next = IdnodeClient.builder().nodes(cluster.grpcAddrs()).build()) {
        assertEquals("orders/101-A", next.nextId("orders"));
      }
    }
  }

  /** What run prints to System.out. */
  private static String printed(Runnable run) {
    PrintStream out = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      run.run();
    } finally {
      System.setOut(out);
    }
    return printed.toString(StandardCharsets.UTF_8);
  }
}
