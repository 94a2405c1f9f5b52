// Package java_test runs the Java client's whole test command (clients/java: its unit tests,
// its tests against real nodes, the conformance suite's JUnit runner and the chaos test) under
// go test, so the README's test command covers the Java client too.
package java_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/idnode/idnode/test/conformance/conformancetest"
)

// debianGrpc is where Debian's libgrpc-java puts grpc-netty in its Maven repository, which
// clients/java builds against offline.
const debianGrpc = "/usr/share/maven-repo/io/grpc/grpc-netty"

// debianPgJDBC is where Debian's libpostgresql-jdbc-java puts PostgreSQL's driver, which the
// JDBC example's test (TourTest) needs.
const debianPgJDBC = "/usr/share/maven-repo/org/postgresql/postgresql"

func TestJavaClient(t *testing.T) {
	_, javaErr := exec.LookPath("java")
	_, mvnErr := exec.LookPath("mvn")
	_, repoErr := os.Stat(debianGrpc)
	_, pgErr := os.Stat(debianPgJDBC)
	conformancetest.Need(t, "Java 17, Maven, Debian's grpc-java packages and libpostgresql-jdbc-java (clients/java/README.md lists the apt-get line)",
		javaErr == nil && mvnErr == nil && repoErr == nil && pgErr == nil)
	env := conformancetest.Env(t)
	dir := filepath.Join(conformancetest.RepoRoot(t), "clients", "java")
	conformancetest.Run(t, dir, env, "mvn", "-o", "-B", "verify")
}
