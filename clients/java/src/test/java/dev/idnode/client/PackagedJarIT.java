package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three jars Maven Central takes, as the package phase leaves them, and the README's first
 * example run against the main jar, as a user who installed it would. Surefire runs this class
 * after packaging (its "packaged" execution in pom.xml), with the jar on the class path in place
 * of target/classes.
 */
class PackagedJarIT {
  /** Where the README's examples find a node: {@code go run ./cmd/idnode}'s gRPC address. */
  private static final String README_ADDR = "127.0.0.1:7070";

  private static final Path TARGET = Path.of("target");

  private static Path jar(String classifier) throws IOException {
    try (var files = Files.list(TARGET)) {
      List<Path> jars = files.filter(p -> {
        String name = p.getFileName().toString();
        return name.startsWith("idnode-client-") && name.endsWith(classifier.isEmpty() ? ".jar" : "-" + classifier + ".jar")
            && (!classifier.isEmpty() || !name.matches(".*-(sources|javadoc)\\.jar"));
      }).toList();
      assertEquals(1, jars.size(), "one " + (classifier.isEmpty() ? "main" : classifier) + " jar in target: " + jars);
      return jars.get(0);
    }
  }

  @Test
  void theJarNamesItsModule() throws IOException {
    try (JarFile jar = new JarFile(jar("").toFile())) {
      assertEquals("dev.idnode.client", jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"));
      assertNotNull(jar.getEntry("dev/idnode/client/IdnodeClient.class"));
      assertNotNull(jar.getEntry("dev/idnode/v1/IdServiceGrpc.class"), "the stubs generated at build time");
    }
  }

  @Test
  void theSourcesJarHoldsTheGeneratedStubsToo() throws IOException {
    try (JarFile jar = new JarFile(jar("sources").toFile())) {
      assertNotNull(jar.getEntry("dev/idnode/client/IdnodeClient.java"));
      assertNotNull(jar.getEntry("dev/idnode/v1/IdServiceGrpc.java"));
    }
  }

  @Test
  void theJavadocJarDocumentsThePublicApi() throws IOException {
    try (JarFile jar = new JarFile(jar("javadoc").toFile())) {
      assertNotNull(jar.getEntry("index.html"));
      assertNotNull(jar.getEntry("dev/idnode/client/IdnodeClient.html"));
    }
  }

  @Test
  void thePomHasWhatMavenCentralRequires() throws IOException {
    String pom = Files.readString(Path.of("pom.xml"));
    for (String element : List.of("<name>", "<description>", "<url>", "<licenses>", "<developers>", "<scm>", "<connection>")) {
      assertTrue(pom.contains(element), "pom.xml has " + element);
    }
  }

  @Test
  void theReadmesFirstExampleRunsAgainstTheJar(@TempDir Path dir) throws Exception {
    String classPath = System.getProperty("java.class.path");
    List<String> entries = Arrays.asList(classPath.split(File.pathSeparator));
    assertTrue(entries.contains(jar("").toAbsolutePath().toString()), "the jar is on the class path: " + classPath);
    assertFalse(entries.contains(TARGET.resolve("classes").toAbsolutePath().toString()), "target/classes is not: " + classPath);

    String example = TourTest.between(Files.readString(Path.of("README.md")), "```java\n", "```");
    assertTrue(example.contains(README_ADDR), example);
    try (IdCluster cluster = new IdCluster()) {
      cluster.start(1, true);
      Path source = dir.resolve("FirstId.java");
      Files.writeString(source, example.replace(README_ADDR, cluster.grpcAddrs().get(0)));
      // Java's source-file mode: the example compiled and run as a user would, in a JVM of its own.
      // What it prints is its standard output. The client logs to standard error
      // (java.util.logging's default), where a loaded machine can put a line about an attempt
      // that timed out and was retried.
      Path logged = dir.resolve("stderr.txt");
      Process p = new ProcessBuilder(IdCluster.javaBinary().toString(), "-cp", classPath, source.toString())
          .redirectError(logged.toFile()).start();
      String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the example exits");
      String log = Files.readString(logged);
      assertEquals(0, p.exitValue(), printed + log);
      assertEquals("orders/1-A\n", printed, log);
    }
  }
}
