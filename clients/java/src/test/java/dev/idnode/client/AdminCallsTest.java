package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import dev.idnode.v1.AddNodeRequest;
import dev.idnode.v1.ClusterVersionResponse;
import dev.idnode.v1.CounterMargin;
import dev.idnode.v1.CreateDatabaseRequest;
import dev.idnode.v1.DatabaseStatus;
import dev.idnode.v1.ExplainResponse;
import dev.idnode.v1.NodeStatus;
import dev.idnode.v1.OpaqueStatus;
import dev.idnode.v1.RatesMargin;
import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.RestoreResponse;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ClusterService admin calls, blocking and async, with the admin token against three real
 * nodes started by idcluster with that token.
 */
class AdminCallsTest {
  private static final String TOKEN = "java-admin-calls-test";
  private static IdCluster idcluster;
  private static List<String> nodes;

  @BeforeAll
  static void startCluster() {
    idcluster = new IdCluster();
    JsonObject topology = new JsonObject();
    topology.addProperty("nodes", 3);
    topology.addProperty("adminToken", TOKEN);
    idcluster.start(topology);
    nodes = idcluster.grpcAddrs();
  }

  @AfterAll
  static void stopCluster() {
    idcluster.close();
  }

  private static IdnodeClient.Builder client() {
    return IdnodeClient.builder().nodes(nodes).deadline(Duration.ofSeconds(20));
  }

  private static IdnodeClient admin() {
    return client().adminToken(TOKEN).build();
  }

  @Test
  void withoutTheTokenAdminCallsAreRefused() {
    try (IdnodeClient anonymous = client().build()) {
      IdnodeException e = assertThrows(IdnodeException.class, () -> anonymous.admin().removeNode("B"));
      assertEquals(Status.Code.UNAUTHENTICATED, e.code(), e.getMessage());
      e = assertThrows(IdnodeException.class, () -> anonymous.admin().backup(new ByteArrayOutputStream()));
      assertEquals(Status.Code.UNAUTHENTICATED, e.code(), e.getMessage());
    }
  }

  /** The entity assignId fills in. */
  static final class Order {
    String id;
  }

  @Test
  void anOpaqueCollectionGivesFormsAndHidesItsValues() throws Exception {
    try (IdnodeClient admin = admin()) {
      admin.databases().create(CreateDatabaseRequest.newBuilder().setName("vault").build());
      OpaqueStatus status = admin.makeOpaque("vault", List.of("Orders"), false);
      assertEquals("vault", status.getDatabase());
      assertEquals(List.of("orders"), status.getCollectionsList());
      assertTrue(status.getKeyFingerprint().matches("[0-9a-f]{16}"), status.getKeyFingerprint());
      OpaqueStatus again = admin.async().makeOpaque("vault", List.of("orders", "invoices"), false).get(20, TimeUnit.SECONDS);
      assertEquals(List.of("invoices", "orders"), again.getCollectionsList());
      assertEquals(status.getKeyFingerprint(), again.getKeyFingerprint(), "a second call made another key");

      try (IdnodeClient vault = client().database("vault").build()) {
        List<String> ids = vault.generate("orders|", 5);
        assertEquals(5, ids.stream().distinct().count(), ids.toString());
        for (String id : ids) {
          assertEquals(Optional.of(id), OpaqueIds.parse(id, "orders"));
        }
        IdnodeException refused = assertThrows(IdnodeException.class, () -> vault.nextIdentity("orders", 1));
        assertEquals(Reasons.OPAQUE_COLLECTION, refused.reason(), refused.getMessage());
        assertEquals(Status.Code.FAILED_PRECONDITION, refused.code());
        Order order = new Order();
        order.id = "orders|";
        String assigned = vault.assignId(order);
        assertEquals(assigned, order.id);
        assertEquals(Optional.of(order.id), OpaqueIds.parse(order.id, "orders"));
        assertFalse(ids.contains(order.id));
        // Without the admin role Explain says opaque and nothing more; with it, the value.
        ExplainResponse seen = vault.explain(ids.get(0));
        assertTrue(seen.getOpaque(), seen.toString());
        assertEquals("identity", seen.getKind());
        assertEquals("", seen.getNumber());
        ExplainResponse told = admin.explain(ids.get(0), "vault");
        assertTrue(told.getOpaque() && told.getNumber().equals("1"), told.toString());
        InvalidRequestException bad = assertThrows(InvalidRequestException.class, () -> vault.explain("orders/KC6HECSWE6SX"));
        assertEquals(Reasons.NOT_OPAQUE_FORM, bad.reason());
      }
    }
  }

  @Test
  void aNonVoterIsAddedAndRemoved() throws Exception {
    try (IdnodeClient admin = admin()) {
      // Never started: a non-voter that does not answer leaves the quorum as it was.
      AddNodeRequest req = AddNodeRequest.newBuilder().setRaftAddress("127.0.0.1:9").setGrpcAddress("127.0.0.1:9").setNonVoter(true).build();
      NodeStatus added = admin.admin().addNode(req).getNode();
      assertFalse(added.getTag().isEmpty(), "the cluster names the new node's tag");
      assertTrue(tags(admin).contains(added.getTag()), "status lists " + added.getTag());
      admin.async().admin().removeNode(added.getTag()).get(20, TimeUnit.SECONDS);
      assertFalse(tags(admin).contains(added.getTag()), "status still lists " + added.getTag());
    }
  }

  private static List<String> tags(IdnodeClient admin) {
    return admin.admin().status(true).getNodesList().stream().map(NodeStatus::getTag).toList();
  }

  @Test
  void leadershipGoesWhereItIsSent() {
    try (IdnodeClient admin = admin()) {
      String leader = admin.admin().status(true).getLeader();
      String target = tags(admin).stream().filter(t -> !t.equals(leader)).findFirst().orElseThrow();
      assertEquals(target, admin.admin().transferLeadership(target));
      // The answering node may learn of the new term a moment later than the old leader did.
      Instant until = Instant.now().plusSeconds(20);
      String seen = admin.admin().status(true).getLeader();
      while (!seen.equals(target) && Instant.now().isBefore(until)) {
        seen = admin.admin().status(true).getLeader();
      }
      assertEquals(target, seen);
      assertNotEquals(leader, seen);
    }
  }

  @Test
  void theClusterVersionIsReadAndSetAgain() throws Exception {
    try (IdnodeClient admin = admin()) {
      ClusterVersionResponse v = admin.admin().clusterVersion();
      assertTrue(v.getFinalised() >= 1, v.toString());
      assertEquals(3, v.getMembersCount(), v.toString());
      ClusterVersionResponse again = admin.async().admin().setClusterVersion(v.getFinalised()).get(20, TimeUnit.SECONDS);
      assertEquals(v.getFinalised(), again.getFinalised());
    }
  }

  @Test
  void aDatabaseIsDeleted() {
    try (IdnodeClient admin = admin()) {
      admin.databases().create(CreateDatabaseRequest.newBuilder().setName("scratch").build());
      assertTrue(databases(admin).contains("scratch"));
      admin.databases().delete("scratch", false);
      assertFalse(databases(admin).contains("scratch"));
    }
  }

  private static List<String> databases(IdnodeClient admin) {
    return admin.databases().list().stream().map(DatabaseStatus::getName).toList();
  }

  @Test
  void anOwnersClaimsAreReleasedTogether() {
    try (IdnodeClient admin = admin()) {
      admin.claim("owner-x", List.of("rooms/1", "rooms/2"));
      assertEquals(2, admin.admin().releaseOwner("owner-x"));
      assertTrue(admin.getClaims(List.of("rooms/1", "rooms/2")).isEmpty());
    }
  }

  @Test
  void aBackupRaisesCountersLoweredSince() throws Exception {
    try (IdnodeClient admin = client().adminToken(TOKEN).database("default").build()) {
      assertEquals(5, admin.nextIdentity("restored", 5).last());
      ByteArrayOutputStream backup = new ByteArrayOutputStream();
      BackupInfo info = admin.async().admin().backup(backup).get(20, TimeUnit.SECONDS);
      assertEquals(backup.size(), info.bytes());
      assertTrue(info.bytes() > 0 && info.index() > 0 && !info.leader().isEmpty(), info.toString());

      assertEquals(1, admin.seedIdentity("restored", 1, true));
      RestoreResponse restored = admin.admin().restore(new ByteArrayInputStream(backup.toByteArray()));
      assertTrue(restored.getIdentitiesRaised() >= 1, restored.toString());
      assertEquals(6, admin.nextIdentity("restored", 1).first());
    }
  }

  @Test
  void aRestoreWithAMarginSkipsThatFarAndCountsTheOpaqueDatabases() throws Exception {
    try (IdnodeClient admin = admin()) {
      admin.databases().create(CreateDatabaseRequest.newBuilder().setName("ledger").build());
      admin.makeOpaque("ledger", List.of("invoices"), false);
      try (IdnodeClient ledger = client().adminToken(TOKEN).database("ledger").build()) {
        ledger.nextIdentity("credits", 10);
        ledger.generate("invoices|", 2);
        ByteArrayOutputStream backup = new ByteArrayOutputStream();
        ledger.admin().backup(backup);
        RestoreMargin ahead = RestoreMargin.newBuilder().setIdentities(CounterMargin.newBuilder().setAdd(100)).build();
        RestoreResponse r = admin.async().admin().restore(new ByteArrayInputStream(backup.toByteArray()), ahead).get(20, TimeUnit.SECONDS);
        assertEquals(ahead, r.getAhead(), r.toString());
        assertEquals(List.of(2L, 2L, 100L, 100L),
            List.of(r.getIdentities(), r.getIdentitiesRaised(), r.getIdentitiesSkippedMin(), r.getIdentitiesSkippedMax()), r.toString());
        // The database holds its key already: counted, and nothing to put back.
        assertEquals(List.of(1L, 0L), List.of(r.getOpaqueDatabases(), r.getOpaqueRestored()), r.toString());
        assertEquals(111, ledger.nextIdentity("credits", 1).first());

        RestoreMargin negative = RestoreMargin.newBuilder().setHilo(CounterMargin.newBuilder().setPercent(-1)).build();
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
            () -> admin.admin().restore(new ByteArrayInputStream(backup.toByteArray()), negative));
        assertEquals(Reasons.INVALID_INPUT, e.reason());

        // By rates: the backup, taken by this build, recorded its cluster's rates, and the
        // answer says what the margin assumed; HiLo keeps the margin given.
        RestoreMargin byRates = RestoreMargin.newBuilder().setHilo(CounterMargin.newBuilder().setAdd(64)).setByRates(true).build();
        RestoreResponse rated = admin.admin().restore(new ByteArrayInputStream(backup.toByteArray()), byRates);
        assertTrue(rated.hasRates() && rated.getRates().getRecorded() && rated.getRates().getFactor() == 2, rated.toString());
        assertTrue(!rated.getAhead().hasIdentities() && rated.getAhead().getHilo().getAdd() == 64, rated.toString());
      }
    }
  }

  @Test
  void anAnswerWithoutTheMarginAskedIsMarginNotApplied() {
    RestoreMargin ahead = RestoreMargin.newBuilder().setHilo(CounterMargin.newBuilder().setPercent(20)).build();
    RestoreResponse echoed = RestoreResponse.newBuilder().setAhead(ahead).setHiloSkippedMax(9).build();
    assertEquals(echoed, RestoreMargins.echoed(ahead, echoed));
    // A node of an older build answers no margin: the counters are at the backup's values only.
    RestoreResponse older = RestoreResponse.newBuilder().setIdentities(3).build();
    MarginNotAppliedException e = assertThrows(MarginNotAppliedException.class, () -> RestoreMargins.echoed(ahead, older));
    assertEquals(Status.Code.FAILED_PRECONDITION, e.code());
    assertEquals("MARGIN_NOT_APPLIED", e.reason());
    assertEquals(older, e.response());
    assertTrue(e.getMessage().contains("HiLo 0+20%; applied identities 0+0%, HiLo 0+0%"), e.getMessage());
    // No margin asked: nothing to echo, whether unset or zeros.
    RestoreMargin zeros = RestoreMargin.newBuilder().setIdentities(CounterMargin.getDefaultInstance()).build();
    assertTrue(RestoreMargins.isNone(zeros) && RestoreMargins.isNone(RestoreMargin.getDefaultInstance()));
    assertEquals(older, RestoreMargins.echoed(zeros, older));
    // By rates, and no rates in the answer: the counters took no margin by rates.
    RestoreMargin byRates = RestoreMargin.newBuilder().setByRates(true).build();
    assertFalse(RestoreMargins.isNone(byRates));
    MarginNotAppliedException noRates = assertThrows(MarginNotAppliedException.class, () -> RestoreMargins.echoed(byRates, older));
    assertTrue(noRates.getMessage().contains("HiLo 0+0%, the rest by rates; applied identities 0+0%, HiLo 0+0%)"), noRates.getMessage());
    RestoreResponse rated = older.toBuilder().setAhead(byRates).setRates(RatesMargin.newBuilder().setRecorded(true)).build();
    assertEquals(rated, RestoreMargins.echoed(byRates, rated));
  }
}
