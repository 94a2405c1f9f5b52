package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.idnode.v1.AcquireWorkerRequest;
import dev.idnode.v1.AddNodeRequest;
import dev.idnode.v1.CreateDatabaseRequest;
import dev.idnode.v1.CreateSeriesRequest;
import dev.idnode.v1.IssueRequest;
import dev.idnode.v1.ListWorkersRequest;
import dev.idnode.v1.ReleaseWorkerRequest;
import dev.idnode.v1.RenewWorkerRequest;
import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.VoidRequest;
import io.grpc.Grpc;
import io.grpc.HandlerRegistry;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * The methods that moved to {@code admin()}, {@code series()}, {@code databases()} and
 * {@code workers()}, on {@link IdnodeClient} and on {@link AsyncIdnodeClient} alike, stay one
 * release as deprecated forwards. Against a node that records the RPC and first message of every
 * call and refuses it, each old method must send what its replacement sends and fail as it fails.
 */
@SuppressWarnings("removal")
class DeprecatedForwardsTest {
  private static final List<String> seen = Collections.synchronizedList(new ArrayList<>());
  private static Server server;
  private static IdnodeClient client;

  /** A call as the node saw it: the RPC's full name and its first message's bytes, hex. */
  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  /** Answers every RPC, whatever its service: records it and refuses it with UNIMPLEMENTED. */
  private static final class Recorder extends HandlerRegistry {
    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String method, String authority) {
      MethodDescriptor<byte[], byte[]> d = MethodDescriptor.newBuilder(BYTES, BYTES)
          .setType(MethodDescriptor.MethodType.UNKNOWN).setFullMethodName(method).build();
      ServerCallHandler<byte[], byte[]> h = (call, headers) -> {
        call.request(1);
        return new ServerCall.Listener<>() {
          @Override
          public void onMessage(byte[] message) {
            seen.add(method + " " + java.util.HexFormat.of().formatHex(message));
            call.close(Status.UNIMPLEMENTED.withDescription("recorded"), new Metadata());
          }
        };
      };
      return ServerMethodDefinition.create(d, h);
    }
  }

  @BeforeAll
  static void start() throws IOException {
    server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()).fallbackHandlerRegistry(new Recorder()).build().start();
    client = IdnodeClient.builder().nodes("127.0.0.1:" + server.getPort()).deadline(Duration.ofSeconds(5)).build();
  }

  @AfterAll
  static void stop() {
    client.close();
    server.shutdownNow();
  }

  /**
   * One moved method: its old and new call on the blocking client, then on the async one, as two
   * tests, the async one's name prefixed {@code async }.
   */
  private static Stream<DynamicTest> moved(String name, Consumer<IdnodeClient> old, Consumer<IdnodeClient> replacement,
      Function<AsyncIdnodeClient, CompletableFuture<?>> asyncOld, Function<AsyncIdnodeClient, CompletableFuture<?>> asyncReplacement) {
    return Stream.of(
        sendsTheSame(name, () -> old.accept(client), () -> replacement.accept(client)),
        sendsTheSame("async " + name, () -> IdnodeClient.await(asyncOld.apply(client.async())),
            () -> IdnodeClient.await(asyncReplacement.apply(client.async()))));
  }

  private static DynamicTest sendsTheSame(String name, Executable old, Executable replacement) {
    return DynamicTest.dynamicTest(name, () -> {
      seen.clear();
      IdnodeException a = assertThrows(IdnodeException.class, old);
      IdnodeException b = assertThrows(IdnodeException.class, replacement);
      assertEquals(2, seen.size(), "each call should reach the node once: " + seen);
      assertEquals(seen.get(1), seen.get(0), name + " sent other than its replacement");
      assertEquals(b.code(), a.code());
    });
  }

  @TestFactory
  Stream<DynamicTest> eachForwardSendsWhatItsReplacementSends() {
    var node = AddNodeRequest.newBuilder().setTag("D").setRaftAddress("r:1").setGrpcAddress("g:1").build();
    var db = CreateDatabaseRequest.newBuilder().setName("shop").build();
    var series = CreateSeriesRequest.newBuilder().setName("INV").setFormat("I-{n}").setRequestId("r1").build();
    var issue = IssueRequest.newBuilder().setSeries("INV").setRequestId("r2").build();
    var voided = VoidRequest.newBuilder().setSeries("INV").setNumber(3).setRequestId("r3").build();
    var acquire = AcquireWorkerRequest.newBuilder().setHolder("h").setWorkerBits(10).setLeaseMs(30_000).setRequestId("r4").build();
    var renew = RenewWorkerRequest.newBuilder().setWorker(4).setEpoch(7).setLeaseMs(30_000).build();
    var release = ReleaseWorkerRequest.newBuilder().setWorker(4).setEpoch(7).build();
    var page = ListWorkersRequest.newBuilder().setPageSize(5).build();
    byte[] backup = {1, 2, 3};
    var none = RestoreMargin.getDefaultInstance();
    return Stream.of(
        moved("status", c -> c.status(true), c -> c.admin().status(true), a -> a.status(true), a -> a.admin().status(true)),
        moved("whoAmI", IdnodeClient::whoAmI, c -> c.admin().whoAmI(), AsyncIdnodeClient::whoAmI, a -> a.admin().whoAmI()),
        moved("addNode", c -> c.addNode(node), c -> c.admin().addNode(node), a -> a.addNode(node), a -> a.admin().addNode(node)),
        moved("removeNode", c -> c.removeNode("D"), c -> c.admin().removeNode("D"),
            a -> a.removeNode("D"), a -> a.admin().removeNode("D")),
        moved("transferLeadership", c -> c.transferLeadership("B"), c -> c.admin().transferLeadership("B"),
            a -> a.transferLeadership("B"), a -> a.admin().transferLeadership("B")),
        moved("backup", c -> c.backup(new ByteArrayOutputStream()), c -> c.admin().backup(new ByteArrayOutputStream()),
            a -> a.backup(new ByteArrayOutputStream()), a -> a.admin().backup(new ByteArrayOutputStream())),
        moved("restore", c -> c.restore(new ByteArrayInputStream(backup)), c -> c.admin().restore(new ByteArrayInputStream(backup)),
            a -> a.restore(new ByteArrayInputStream(backup)), a -> a.admin().restore(new ByteArrayInputStream(backup))),
        moved("restore with a margin", c -> c.restore(new ByteArrayInputStream(backup), none),
            c -> c.admin().restore(new ByteArrayInputStream(backup), none),
            a -> a.restore(new ByteArrayInputStream(backup), none), a -> a.admin().restore(new ByteArrayInputStream(backup), none)),
        moved("clusterVersion", IdnodeClient::clusterVersion, c -> c.admin().clusterVersion(),
            AsyncIdnodeClient::clusterVersion, a -> a.admin().clusterVersion()),
        moved("setClusterVersion", c -> c.setClusterVersion(2), c -> c.admin().setClusterVersion(2),
            a -> a.setClusterVersion(2), a -> a.admin().setClusterVersion(2)),
        moved("releaseOwner", c -> c.releaseOwner("o1"), c -> c.admin().releaseOwner("o1"),
            a -> a.releaseOwner("o1"), a -> a.admin().releaseOwner("o1")),
        moved("createSeries", c -> c.createSeries(series), c -> c.series().create(series),
            a -> a.createSeries(series), a -> a.series().create(series)),
        moved("listSeries", IdnodeClient::listSeries, c -> c.series().list(), AsyncIdnodeClient::listSeries, a -> a.series().list()),
        moved("issue", c -> c.issue(issue), c -> c.series().issue(issue), a -> a.issue(issue), a -> a.series().issue(issue)),
        moved("voidNumber", c -> c.voidNumber(voided), c -> c.series().voidNumber(voided),
            a -> a.voidNumber(voided), a -> a.series().voidNumber(voided)),
        moved("verifySeries", c -> c.verifySeries("INV"), c -> c.series().verify("INV"),
            a -> a.verifySeries("INV"), a -> a.series().verify("INV")),
        moved("journal", c -> c.journal("INV", 2, 0), c -> c.series().journal("INV", 2, 0),
            a -> a.journal("INV", 2, 0), a -> a.series().journal("INV", 2, 0)),
        moved("createDatabase", c -> c.createDatabase(db), c -> c.databases().create(db),
            a -> a.createDatabase(db), a -> a.databases().create(db)),
        moved("deleteDatabase", c -> c.deleteDatabase("shop", true), c -> c.databases().delete("shop", true),
            a -> a.deleteDatabase("shop", true), a -> a.databases().delete("shop", true)),
        moved("listDatabases", IdnodeClient::listDatabases, c -> c.databases().list(),
            AsyncIdnodeClient::listDatabases, a -> a.databases().list()),
        moved("createKey", c -> c.createKey("shop", "writer"), c -> c.databases().createKey("shop", "writer"),
            a -> a.createKey("shop", "writer"), a -> a.databases().createKey("shop", "writer")),
        moved("deleteKey", c -> c.deleteKey("k1"), c -> c.databases().deleteKey("k1"),
            a -> a.deleteKey("k1"), a -> a.databases().deleteKey("k1")),
        moved("listKeys", IdnodeClient::listKeys, c -> c.databases().listKeys(), AsyncIdnodeClient::listKeys, a -> a.databases().listKeys()),
        moved("acquireWorker", c -> c.acquireWorker(acquire), c -> c.workers().acquire(acquire),
            a -> a.acquireWorker(acquire), a -> a.workers().acquire(acquire)),
        moved("renewWorker", c -> c.renewWorker(renew), c -> c.workers().renew(renew),
            a -> a.renewWorker(renew), a -> a.workers().renew(renew)),
        moved("releaseWorker", c -> c.releaseWorker(release), c -> c.workers().release(release),
            a -> a.releaseWorker(release), a -> a.workers().release(release)),
        moved("listWorkers", c -> c.listWorkers(page), c -> c.workers().list(page),
            a -> a.listWorkers(page), a -> a.workers().list(page)))
        .flatMap(tests -> tests);
  }
}
