package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import dev.idnode.v1.CreateSeriesRequest;
import dev.idnode.v1.ExplainResponse;
import dev.idnode.v1.GenerateRequest;
import dev.idnode.v1.GuidVersion;
import dev.idnode.v1.IssueRequest;
import dev.idnode.v1.NextHiLoRequest;
import dev.idnode.v1.SeriesEntry;
import dev.idnode.v1.SeriesEntryKind;
import dev.idnode.v1.SeriesField;
import dev.idnode.v1.SeriesPeriod;
import dev.idnode.v1.SeriesPolicy;
import dev.idnode.v1.VerifySeriesResponse;
import dev.idnode.v1.VoidRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The conformance suite's runner for the Java client: every scenario of
 * test/conformance/scenarios (IDNODE_CONFORMANCE_DIR overrides), in name order, against real
 * nodes started by idcluster, each operation mapped onto this client's API.
 */
class ConformanceTest {
  private static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(10);
  private static IdCluster cluster;
  @AfterAll
  static void stopControlProgram() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @TestFactory
  Stream<DynamicTest> scenarios() throws IOException {
    Path dir = IdCluster.scenarios();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertFalse(files.isEmpty(), "no scenarios in " + dir);
    return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
      if (cluster == null) {
        cluster = new IdCluster();
      }
      new Run(JsonParser.parseString(Files.readString(f)).getAsJsonObject()).run();
    }));
  }

  /** One scenario's run: its clients and what its steps saved. */
  private static final class Run {
    private final JsonObject scenario;
    private final Map<String, IdnodeClient> clients = new LinkedHashMap<>();
    private final Map<String, NumericGenerator> numeric = new LinkedHashMap<>();
    private final Map<String, JsonElement> saved = new LinkedHashMap<>();

    Run(JsonObject scenario) {
      this.scenario = scenario;
    }

    void run() {
      JsonObject topology = scenario.has("topology") ? scenario.getAsJsonObject("topology") : new JsonObject();
      cluster.start(topology);
      try {
        open("c", new JsonObject());
        JsonArray steps = scenario.getAsJsonArray("steps");
        for (int i = 0; i < steps.size(); i++) {
          JsonObject step = steps.get(i).getAsJsonObject();
          try {
            step(step);
          } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("step " + (i + 1) + " " + step + ": " + e.getMessage(), e);
          }
        }
      } finally {
        List<String> errors = new ArrayList<>();
        for (Map.Entry<String, IdnodeClient> c : clients.entrySet()) {
          try {
            c.getValue().close();
          } catch (RuntimeException e) {
            errors.add("closing client " + c.getKey() + ": " + e);
          }
        }
        cluster.teardown();
        assertEquals(List.of(), errors);
      }
    }

    private void step(JsonObject step) {
      if (step.has("fault")) {
        JsonObject answer = cluster.command(step.get("fault").getAsString(), step.has("node") ? step.get("node").getAsString() : null);
        if (step.has("expect")) {
          assertNull(JsonMatch.mismatch(step.getAsJsonObject("expect").get("result"), answer, this::ref, "result"));
        }
        if (step.has("save")) {
          saved.put(step.get("save").getAsString(), answer);
        }
        return;
      }
      String op = step.get("op").getAsString();
      String name = step.has("client") ? step.get("client").getAsString() : "c";
      JsonObject args = step.has("args") ? resolveRefs(step.get("args")).getAsJsonObject() : new JsonObject();
      if (op.equals("open")) {
        open(name, args);
        return;
      }
      IdnodeClient client = clients.get(name);
      assertNotNull(client, "no open client " + name);
      Duration deadline = step.has("deadlineMs") ? Duration.ofMillis(step.get("deadlineMs").getAsLong()) : DEFAULT_DEADLINE;
      JsonElement result = null;
      IdnodeException refused = null;
      long began = System.nanoTime();
      try {
        result = operation(op, name, client.withDeadline(deadline), new Args(args));
      } catch (IdnodeException e) {
        refused = e;
      }
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
      if (step.has("withinMs") && tookMs > step.get("withinMs").getAsLong()) {
        fail("took " + tookMs + " ms, more than withinMs " + step.get("withinMs") + " (outcome: " + (refused != null ? refused : result) + ")");
      }
      if (refused != null) {
        IdnodeException e = refused;
        JsonObject expect = step.has("expect") ? step.getAsJsonObject("expect") : null;
        if (expect == null || !expect.has("error")) {
          throw e;
        }
        JsonObject want = expect.getAsJsonObject("error");
        if (want.has("code")) {
          assertEquals(want.get("code").getAsString(), e.code().name(), "code of " + e);
        }
        if (want.has("reason")) {
          assertEquals(want.get("reason").getAsString(), e.reason(), "reason of " + e);
        }
        return;
      }
      if (step.has("expect")) {
        JsonObject expect = step.getAsJsonObject("expect");
        if (expect.has("error")) {
          fail("want error " + expect.get("error") + ", got result " + result);
        }
        assertNull(JsonMatch.mismatch(expect.get("result"), result, this::ref, "result"));
      }
      if (step.has("save")) {
        saved.put(step.get("save").getAsString(), result);
      }
    }

    private void open(String name, JsonObject args) {
      Args a = new Args(args);
      List<String> addrs = new ArrayList<>();
      if (args.has("nodes")) {
        for (JsonElement sel : args.getAsJsonArray("nodes")) {
          cluster.select(sel.getAsString()).forEach(tag -> addrs.add(cluster.grpc(tag)));
        }
      } else {
        addrs.addAll(cluster.grpcAddrs());
      }
      IdnodeClient.Builder b = IdnodeClient.builder().nodes(addrs).deadline(DEFAULT_DEADLINE)
          // As the reference runner does: scenarios that open a second client (HiLo returns
          // with node pools) expect it to start at the node the first one started at.
          .nodesInOrder(true);
      if (args.has("region")) {
        b.region(a.str("region"), cluster.regions(addrs));
      }
      if (args.has("database")) {
        b.database(a.str("database"));
      }
      if (args.has("apiKey")) {
        JsonElement k = args.get("apiKey");
        b.apiKey(k.isJsonObject() ? k.getAsJsonObject().get("secret").getAsString()
            : cluster.cluster().getAsJsonObject("keys").get(k.getAsString()).getAsString());
      }
      JsonObject tls = cluster.cluster().has("tls") ? cluster.cluster().getAsJsonObject("tls") : null;
      if (a.bool("tls")) {
        b.tls(Path.of(tls.get("ca").getAsString()));
      }
      if (a.bool("clientCert")) {
        b.clientCertificate(Path.of(tls.get("clientCert").getAsString()), Path.of(tls.get("clientKey").getAsString()));
      }
      IdnodeClient old = clients.put(name, b.build());
      if (old != null) {
        old.close();
      }
    }

    private JsonElement operation(String op, String name, IdnodeClient c, Args a) {
      return switch (op) {
        case "close" -> {
          numeric.remove(name);
          clients.remove(name).close();
          yield new JsonObject();
        }
        case "generate" -> {
          GenerateRequest.Builder req = GenerateRequest.newBuilder().setId(a.str("id")).setCount(a.num("count", 0))
              .setRequestId(a.str("requestId")).setClaim(a.bool("claim")).setOwner(a.str("owner")).setNumeric(a.bool("numeric"));
          switch (a.str("guidVersion")) {
            case "v4" -> req.setGuidVersion(GuidVersion.GUID_VERSION_V4);
            case "v7" -> req.setGuidVersion(GuidVersion.GUID_VERSION_V7);
            case "" -> { }
            default -> throw new IllegalArgumentException("guidVersion must be v4 or v7");
          }
          yield obj("ids", strings(c.generate(req.build())));
        }
        case "nextIdentity" -> {
          IdentityBlock b = c.nextIdentity(a.str("name"), a.num("count", 0), a.str("requestId"));
          JsonArray skipped = new JsonArray();
          b.skipped().forEach(skipped::add);
          yield obj("first", b.first(), "last", b.last(), "skipped", skipped);
        }
        case "seedIdentity" -> obj("value", c.seedIdentity(a.str("name"), a.num("value", 0), a.bool("force")));
        case "listIdentities" -> {
          JsonArray ids = new JsonArray();
          c.listIdentities(a.str("prefix")).forEach(i -> ids.add(obj("name", i.name(), "value", i.value())));
          yield obj("identities", ids);
        }
        case "claim" -> {
          c.claim(a.str("owner"), a.strings("ids"), a.str("requestId"));
          yield new JsonObject();
        }
        case "release" -> obj("released", c.release(a.str("owner"), a.strings("ids"), a.str("requestId")));
        case "getClaims" -> {
          JsonArray claims = new JsonArray();
          c.getClaims(a.strings("ids")).forEach(cl -> claims.add(obj("id", cl.id(), "owner", cl.owner())));
          yield obj("claims", claims);
        }
        case "nextHiLo" -> {
          HiLoRange r = c.nextHiLo(NextHiLoRequest.newBuilder().setTag(a.str("tag")).setLastBatchSize(a.num("lastBatchSize", 0))
              .setLastMax(a.num("lastMax", 0)).setRequestId(a.str("requestId")).build());
          yield obj("prefix", r.prefix(), "low", r.low(), "high", r.high(), "lastSize", r.lastSize(),
              "serverTag", r.serverTag(), "grantId", r.grantId());
        }
        case "returnHiLo" -> obj("returned", c.returnHiLo(a.str("tag"), a.num("end", 0), a.num("last", 0), a.str("grantId")));
        case "seedHiLo" -> obj("max", c.seedHiLo(a.str("tag"), a.num("max", 0)));
        case "explain" -> {
          ExplainResponse e = c.explain(a.str("id"));
          yield obj("kind", e.getKind(), "encoding", e.getEncoding(), "value", Long.toString(e.getValue()), "worker", e.getWorker(),
              "sequence", e.getSequence(), "prefix", e.getPrefix(), "number", e.getNumber(), "nodeTag", e.getNodeTag(),
              "guidVersion", e.getGuidVersion(), "opaque", e.getOpaque());
        }
        case "assignId" -> {
          ConformanceEntity entity = new ConformanceEntity();
          entity.id = a.str("id");
          String id = c.assignId(entity);
          if (!id.equals(entity.id)) {
            throw new AssertionError("assignId returned " + id + " but left the entity's id " + entity.id);
          }
          yield obj("id", entity.id);
        }
        case "hiloIds" -> {
          // Through the view, whose deadline bounds a wait for a range.
          List<String> ids = new ArrayList<>();
          for (long i = 0; i < a.num("count", 1); i++) {
            ids.add(c.nextId(a.str("tag")));
          }
          yield obj("ids", strings(ids));
        }
        case "hiloIdsParallel" -> obj("ids", strings(parallel(c.hiloGenerator(a.str("tag")), (int) a.num("workers", 1), a.num("each", 1))));
        case "numericIds" -> {
          NumericGenerator g = numeric.computeIfAbsent(name, n -> c.numericGenerator(NumericOptions.DEFAULT));
          List<String> ids = new ArrayList<>();
          for (long i = 0; i < a.num("count", 1); i++) {
            ids.add(Long.toString(g.next()));
          }
          yield obj("ids", strings(ids), "worker", g.lease().getWorker(), "epoch", g.lease().getEpoch());
        }
        case "opaqueForms" -> {
          String collection = a.str("collection");
          List<String> forms = new ArrayList<>();
          for (String id : a.strings("ids")) {
            Optional<String> form = collection.isEmpty() ? OpaqueIds.parseNumeric(id) : OpaqueIds.parse(id, collection);
            forms.add(form.orElseThrow(() -> new AssertionError(
                id + " is not " + (collection.isEmpty() ? "an opaque numeric ID" : "an opaque ID of " + collection))));
          }
          yield obj("ids", strings(forms));
        }
        case "createSeries" -> {
          var s = c.series().create(CreateSeriesRequest.newBuilder().setName(a.str("name")).setFormat(a.str("format"))
              .setPeriod(switch (a.str("period")) {
                case "", "none" -> SeriesPeriod.SERIES_PERIOD_NONE;
                case "year" -> SeriesPeriod.SERIES_PERIOD_YEAR;
                case "month" -> SeriesPeriod.SERIES_PERIOD_MONTH;
                default -> throw new IllegalArgumentException("period must be none, year or month");
              })
              .setPolicy(switch (a.str("policy")) {
                case "", "gapless" -> SeriesPolicy.SERIES_POLICY_GAPLESS;
                case "gapsAllowedJournaled" -> SeriesPolicy.SERIES_POLICY_GAPS_ALLOWED_JOURNALED;
                default -> throw new IllegalArgumentException("policy must be gapless or gapsAllowedJournaled");
              }).build());
          yield obj("name", s.getName(), "format", s.getFormat());
        }
        case "issue" -> {
          IssueRequest.Builder req = IssueRequest.newBuilder().setSeries(a.str("series")).setDocumentHash(a.str("documentHash"))
              .setRequestId(a.str("requestId").isEmpty() ? AsyncIdnodeClient.newRequestId() : a.str("requestId"));
          if (a.json.has("fields")) {
            a.json.getAsJsonObject("fields").entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(f -> req.addFields(SeriesField.newBuilder().setKey(f.getKey()).setValue(f.getValue().getAsString())));
          }
          yield entry(c.series().issue(req.build()));
        }
        case "void" -> entry(c.series().voidNumber(VoidRequest.newBuilder().setSeries(a.str("series")).setNumber(a.num("number", 0))
            .setPeriod(a.str("period")).setReason(a.str("reason")).setCorrecting(a.str("correcting")).build()));
        case "verifySeries" -> {
          VerifySeriesResponse v = c.series().verify(a.str("series"));
          yield obj("ok", v.getOk(), "entries", v.getEntries(), "issued", v.getIssued(), "voided", v.getVoided(), "breakSeq", v.getBreakSeq());
        }
        default -> throw new IllegalArgumentException("operation " + op + " is not in the suite's contract");
      };
    }

    private static List<String> parallel(HiLoGenerator g, int workers, long each) {
      ExecutorService pool = Executors.newFixedThreadPool(workers);
      CountDownLatch go = new CountDownLatch(1);
      ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
          done.add(pool.submit(() -> {
            go.await();
            for (long i = 0; i < each; i++) {
              ids.add(g.nextId());
            }
            return null;
          }));
        }
        go.countDown();
        for (Future<?> f : done) {
          try {
            f.get(30, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
          }
        }
      } catch (Exception e) {
        throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
      } finally {
        pool.shutdownNow();
      }
      return new ArrayList<>(ids);
    }

    private static JsonObject entry(SeriesEntry e) {
      String kind = e.getKind() == SeriesEntryKind.SERIES_ENTRY_KIND_ISSUED ? "issued"
          : e.getKind() == SeriesEntryKind.SERIES_ENTRY_KIND_VOIDED ? "voided" : "unspecified";
      return obj("seq", e.getSeq(), "kind", kind, "period", e.getPeriod(), "number", e.getNumber(), "id", e.getId(),
          "hash", e.getHash(), "prevHash", e.getPrevHash());
    }

    /** A saved value: a name, then keys and array indexes separated by dots. */
    private JsonElement ref(JsonElement path) {
      String[] parts = path.getAsString().split("\\.");
      JsonElement v = saved.get(parts[0]);
      for (int i = 1; i < parts.length && v != null; i++) {
        v = v.isJsonArray() ? v.getAsJsonArray().get(Integer.parseInt(parts[i])) : v.getAsJsonObject().get(parts[i]);
      }
      if (v == null) {
        throw new IllegalArgumentException("$ref " + path + ": nothing saved there (saved: " + saved.keySet() + ")");
      }
      return v;
    }

    private JsonElement resolveRefs(JsonElement e) {
      if (e.isJsonObject()) {
        JsonObject o = e.getAsJsonObject();
        if (o.size() == 1 && o.has("$ref")) {
          return ref(o.get("$ref"));
        }
        JsonObject out = new JsonObject();
        o.entrySet().forEach(kv -> out.add(kv.getKey(), resolveRefs(kv.getValue())));
        return out;
      }
      if (e.isJsonArray()) {
        JsonArray out = new JsonArray();
        e.getAsJsonArray().forEach(x -> out.add(resolveRefs(x)));
        return out;
      }
      return e;
    }
  }

  /** An operation's arguments; one left out takes the client's default. */
  private record Args(JsonObject json) {
    String str(String key) {
      return json.has(key) ? json.get(key).getAsString() : "";
    }

    long num(String key, long dflt) {
      return json.has(key) ? json.get(key).getAsLong() : dflt;
    }

    boolean bool(String key) {
      return json.has(key) && json.get(key).getAsBoolean();
    }

    List<String> strings(String key) {
      if (!json.has(key)) {
        return Collections.emptyList();
      }
      List<String> out = new ArrayList<>();
      json.getAsJsonArray(key).forEach(e -> out.add(e.getAsString()));
      return out;
    }
  }

  private static JsonArray strings(List<String> values) {
    JsonArray a = new JsonArray();
    values.forEach(a::add);
    return a;
  }

  /** The entity of the assignId operation: an {@code id} field, as an application's. */
  static final class ConformanceEntity {
    String id;
  }

  private static JsonObject obj(Object... kv) {
    JsonObject o = new JsonObject();
    for (int i = 0; i < kv.length; i += 2) {
      Object v = kv[i + 1];
      o.add((String) kv[i], v instanceof JsonElement j ? j
          : v instanceof Number n ? new JsonPrimitive(n)
          : v instanceof Boolean b ? new JsonPrimitive(b)
          : new JsonPrimitive(v.toString()));
    }
    return o;
  }
}
