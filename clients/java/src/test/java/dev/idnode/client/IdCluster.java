package dev.idnode.client;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Drives the control program idcluster (test/conformance/README.md): one JSON request per line
 * in, one answer per line out. It starts, breaks and removes the clusters tests need, so no test
 * handles node processes itself. The binaries come from IDNODE_BIN and IDNODE_CLUSTER_BIN, else
 * they are built once from the repository with go build.
 */
final class IdCluster implements AutoCloseable {
  private static final Gson GSON = new Gson();
  private static Path built;

  private final Process process;
  private final BufferedWriter in;
  private final BufferedReader out;
  private JsonObject cluster;

  IdCluster() {
    Path[] bins = binaries();
    try {
      Path log = Files.createTempFile("idcluster-", ".log");
      process = new ProcessBuilder(bins[1].toString(), "--idnode", bins[0].toString())
          .redirectError(log.toFile())
          .start();
      in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
      out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("starting idcluster " + bins[1] + ": " + e.getMessage(), e);
    }
  }

  /** The repository root: the nearest folder above the working directory with go.mod and cmd/idnode. */
  static Path repoRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("go.mod")) && Files.isDirectory(p.resolve("cmd/idnode"))) {
        return p;
      }
    }
    throw new IllegalStateException("run the tests inside the idnode repository (no go.mod with cmd/idnode above "
        + Path.of("").toAbsolutePath() + ")");
  }

  /** The scenarios folder: IDNODE_CONFORMANCE_DIR, else the repository's. */
  static Path scenarios() {
    String dir = System.getenv("IDNODE_CONFORMANCE_DIR");
    return dir != null && !dir.isEmpty() ? Path.of(dir) : repoRoot().resolve("test/conformance/scenarios");
  }

  /** idnode and idcluster: from the environment, else built once into a temporary folder. */
  static synchronized Path[] binaries() {
    String idnode = System.getenv("IDNODE_BIN");
    String idcluster = System.getenv("IDNODE_CLUSTER_BIN");
    if (idnode != null && !idnode.isEmpty() && idcluster != null && !idcluster.isEmpty()) {
      return new Path[] {Path.of(idnode), Path.of(idcluster)};
    }
    if (built == null) {
      try {
        Path dir = Files.createTempDirectory("idnode-java-bin");
        go(dir.resolve("idnode"), "./cmd/idnode");
        go(dir.resolve("idcluster"), "./test/conformance/idcluster");
        built = dir;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new Path[] {built.resolve("idnode"), built.resolve("idcluster")};
  }

  private static void go(Path out, String pkg) throws IOException {
    run(List.of("go", "build", "-o", out.toString(), pkg), repoRoot(), 5, TimeUnit.MINUTES,
        "; set IDNODE_BIN and IDNODE_CLUSTER_BIN, or install Go");
  }

  /**
   * Runs command in dir, its output kept aside. A failure, or a command still running after the
   * timeout (then killed), is an exception with that output: asking a running process for its
   * exit value would throw and hide why the build failed.
   */
  static void run(List<String> command, Path dir, long timeout, TimeUnit unit, String hint) throws IOException {
    String what = String.join(" ", command);
    Path log = Files.createTempFile("idnode-java-run-", ".log");
    try {
      Process p = new ProcessBuilder(command).directory(dir.toFile())
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      try {
        if (!p.waitFor(timeout, unit)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
          throw new IllegalStateException(what + " did not finish within " + timeout + " "
              + unit.toString().toLowerCase() + hint + output(log));
        }
        if (p.exitValue() != 0) {
          throw new IllegalStateException(what + " failed (exit " + p.exitValue() + ")" + hint + output(log));
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted running " + what, e);
      }
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** What a command printed, for its failure's message. */
  private static String output(Path log) throws IOException {
    String text = Files.readString(log, StandardCharsets.UTF_8).strip();
    return text.isEmpty() ? "; it printed nothing" : "; it printed:\n" + text;
  }

  /** Sends one request and returns its answer; a refusal is an exception naming it. */
  synchronized JsonObject send(JsonObject request) {
    try {
      in.write(GSON.toJson(request));
      in.write('\n');
      in.flush();
      String line = out.readLine();
      if (line == null) {
        throw new IllegalStateException("idcluster exited (exit " + exitValue() + ") before answering " + request);
      }
      JsonObject answer = JsonParser.parseString(line).getAsJsonObject();
      if (!answer.get("ok").getAsBoolean()) {
        throw new IllegalStateException("idcluster refused " + request + ": " + answer.get("error").getAsString());
      }
      return answer;
    } catch (IOException e) {
      throw new UncheckedIOException("talking to idcluster: " + e.getMessage(), e);
    }
  }

  private String exitValue() {
    return process.isAlive() ? "still running" : Integer.toString(process.exitValue());
  }

  JsonObject command(String cmd, String node) {
    JsonObject req = new JsonObject();
    req.addProperty("cmd", cmd);
    if (node != null) {
      req.addProperty("node", node);
    }
    return send(req);
  }

  /** Starts a cluster of the topology and returns its description (nodes, leader, keys, tls). */
  JsonObject start(JsonObject topology) {
    JsonObject req = new JsonObject();
    req.addProperty("cmd", "start");
    req.add("topology", topology);
    cluster = send(req).getAsJsonObject("cluster");
    return cluster;
  }

  JsonObject start(int nodes, boolean hiloPools) {
    JsonObject t = new JsonObject();
    t.addProperty("nodes", nodes);
    t.addProperty("hiloPools", hiloPools);
    return start(t);
  }

  JsonObject cluster() {
    return cluster;
  }

  /** The tags a selector (a tag, leader, follower, followers, all) stands for now. */
  List<String> select(String selector) {
    List<String> tags = new ArrayList<>();
    for (JsonElement n : cluster.getAsJsonArray("nodes")) {
      tags.add(n.getAsJsonObject().get("tag").getAsString());
    }
    return switch (selector) {
      case "all" -> tags;
      case "leader", "follower", "followers" -> {
        String leader = command("leader", null).get("leader").getAsString();
        List<String> followers = tags.stream().filter(t -> !t.equals(leader)).sorted().toList();
        yield selector.equals("leader") ? List.of(leader) : selector.equals("follower") ? followers.subList(0, 1) : followers;
      }
      default -> List.of(selector);
    };
  }

  /** The gRPC address of the node with tag. */
  String grpc(String tag) {
    for (JsonElement n : cluster.getAsJsonArray("nodes")) {
      if (n.getAsJsonObject().get("tag").getAsString().equals(tag)) {
        return n.getAsJsonObject().get("grpc").getAsString();
      }
    }
    throw new IllegalArgumentException("no node " + tag + " in " + cluster);
  }

  /** Every node's gRPC address, by tag. */
  List<String> grpcAddrs() {
    List<String> addrs = new ArrayList<>();
    JsonArray nodes = cluster.getAsJsonArray("nodes");
    nodes.forEach(n -> addrs.add(n.getAsJsonObject().get("grpc").getAsString()));
    return addrs;
  }

  /** The region of each of these gRPC addresses whose node has one (the topology's regions). */
  Map<String, String> regions(List<String> addrs) {
    Map<String, String> regions = new LinkedHashMap<>();
    for (JsonElement n : cluster.getAsJsonArray("nodes")) {
      JsonObject node = n.getAsJsonObject();
      String addr = node.get("grpc").getAsString();
      if (node.has("region") && addrs.contains(addr)) {
        regions.put(addr, node.get("region").getAsString());
      }
    }
    return regions;
  }

  /**
   * A JDBC URL of the private PostgreSQL server idcluster starts (once per idcluster; stopped at
   * teardown). Without PostgreSQL the test is skipped, except under CI=true, where .ci/run
   * installs it.
   */
  String postgresJdbcUrl() {
    JsonObject pg;
    try {
      pg = command("postgres", null).getAsJsonObject("postgres");
    } catch (IllegalStateException e) {
      String message = String.valueOf(e.getMessage());
      boolean missing = message.contains("PostgreSQL is not installed") || message.contains("no postgres user");
      if (missing && !"true".equals(System.getenv("CI"))) {
        Assumptions.abort(message);
      }
      throw e;
    }
    return "jdbc:postgresql://" + pg.get("addr").getAsString() + "/" + pg.get("database").getAsString()
        + "?user=" + pg.get("user").getAsString();
  }

  /** Removes the cluster (kills its nodes, deletes their data). */
  void teardown() {
    command("teardown", null);
    cluster = null;
  }

  /** Closing idcluster's input kills every node and removes their data. */
  @Override
  public void close() {
    try {
      in.close();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  static File javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toFile();
  }
}
