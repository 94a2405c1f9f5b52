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
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The methods that moved to {@code admin()}, {@code series()}, {@code databases()} and
 * {@code workers()} stay one release as deprecated forwards. Against a node that records the RPC
 * and first message of every call and refuses it, each old method must send what its
 * replacement sends and fail as it fails.
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

  private static DynamicTest pair(String name, Consumer<IdnodeClient> old, Consumer<IdnodeClient> replacement) {
    return DynamicTest.dynamicTest(name, () -> {
      seen.clear();
      IdnodeException a = assertThrows(IdnodeException.class, () -> old.accept(client));
      IdnodeException b = assertThrows(IdnodeException.class, () -> replacement.accept(client));
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
    return Stream.of(
        pair("status", c -> c.status(true), c -> c.admin().status(true)),
        pair("whoAmI", IdnodeClient::whoAmI, c -> c.admin().whoAmI()),
        pair("addNode", c -> c.addNode(node), c -> c.admin().addNode(node)),
        pair("removeNode", c -> c.removeNode("D"), c -> c.admin().removeNode("D")),
        pair("transferLeadership", c -> c.transferLeadership("B"), c -> c.admin().transferLeadership("B")),
        pair("backup", c -> c.backup(new ByteArrayOutputStream()), c -> c.admin().backup(new ByteArrayOutputStream())),
        pair("restore", c -> c.restore(new ByteArrayInputStream(backup)), c -> c.admin().restore(new ByteArrayInputStream(backup))),
        pair("restore with a margin", c -> c.restore(new ByteArrayInputStream(backup), RestoreMargin.getDefaultInstance()),
            c -> c.admin().restore(new ByteArrayInputStream(backup), RestoreMargin.getDefaultInstance())),
        pair("clusterVersion", IdnodeClient::clusterVersion, c -> c.admin().clusterVersion()),
        pair("setClusterVersion", c -> c.setClusterVersion(2), c -> c.admin().setClusterVersion(2)),
        pair("releaseOwner", c -> c.releaseOwner("o1"), c -> c.admin().releaseOwner("o1")),
        pair("createSeries", c -> c.createSeries(series), c -> c.series().create(series)),
        pair("listSeries", IdnodeClient::listSeries, c -> c.series().list()),
        pair("issue", c -> c.issue(issue), c -> c.series().issue(issue)),
        pair("voidNumber", c -> c.voidNumber(voided), c -> c.series().voidNumber(voided)),
        pair("verifySeries", c -> c.verifySeries("INV"), c -> c.series().verify("INV")),
        pair("journal", c -> c.journal("INV", 2, 0), c -> c.series().journal("INV", 2, 0)),
        pair("createDatabase", c -> c.createDatabase(db), c -> c.databases().create(db)),
        pair("deleteDatabase", c -> c.deleteDatabase("shop", true), c -> c.databases().delete("shop", true)),
        pair("listDatabases", IdnodeClient::listDatabases, c -> c.databases().list()),
        pair("createKey", c -> c.createKey("shop", "writer"), c -> c.databases().createKey("shop", "writer")),
        pair("deleteKey", c -> c.deleteKey("k1"), c -> c.databases().deleteKey("k1")),
        pair("listKeys", IdnodeClient::listKeys, c -> c.databases().listKeys()),
        pair("acquireWorker", c -> c.acquireWorker(acquire), c -> c.workers().acquire(acquire)),
        pair("renewWorker", c -> c.renewWorker(renew), c -> c.workers().renew(renew)),
        pair("releaseWorker", c -> c.releaseWorker(release), c -> c.workers().release(release)),
        pair("listWorkers", c -> c.listWorkers(page), c -> c.workers().list(page)));
  }
}
