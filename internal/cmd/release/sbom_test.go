package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/filesum"
)

// The test binary carries Go build information like a release binary does, so it stands in
// for one: the document describes it with its checksum and contains the standard library.
func TestSBOMDescribesABinary(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 11, 23, 20, 0, 0, 0, time.FixedZone("CET", 3600))
	doc, err := buildSBOM("v9.9.9", created, t.TempDir(), ".", []string{bin})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := filesum.SHA256(bin)
	if err != nil {
		t.Fatal(err)
	}
	if doc.CreationInfo.Created != "2026-11-23T19:00:00Z" {
		t.Errorf("created %q, want UTC 2026-11-23T19:00:00Z", doc.CreationInfo.Created)
	}
	if len(doc.DocumentDescribes) != 1 || doc.DocumentDescribes[0] != doc.Packages[0].SPDXID {
		t.Fatalf("describes %v, want the binary %s", doc.DocumentDescribes, doc.Packages[0].SPDXID)
	}
	b := doc.Packages[0]
	if len(b.Checksums) != 1 || b.Checksums[0].ChecksumValue != sum || b.VersionInfo != "v9.9.9" {
		t.Errorf("binary package %+v, want version v9.9.9 and SHA256 %s", b, sum)
	}
	if !strings.Contains(doc.DocumentNamespace, "/v9.9.9-") {
		t.Errorf("namespace %q does not name the version", doc.DocumentNamespace)
	}
	var std bool
	for _, p := range doc.Packages[1:] {
		std = std || (p.Name == "stdlib" && p.LicenseConcluded == "BSD-3-Clause")
	}
	if !std {
		t.Errorf("no stdlib package in %+v", doc.Packages)
	}
	for _, r := range doc.Relationships[1:] {
		if r.Element != b.SPDXID || r.Type != "CONTAINS" {
			t.Errorf("relationship %+v, want the binary CONTAINS", r)
		}
	}
	if _, err := json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
}

// A module replaced by a patched copy in this repository keeps its name and version, marked
// +idnode, with the copy's licence; one replaced by another module is that module.
func TestSBOMNamesAPatchedCopyAsTheModuleItPatches(t *testing.T) {
	patched := &debug.Module{Path: "github.com/hashicorp/raft", Version: "v1.7.3", Replace: &debug.Module{Path: "./third_party/hashicorp/raft"}}
	if path, version, license := depOf(patched, t.TempDir(), "../../.."); path != "github.com/hashicorp/raft" || version != "v1.7.3+idnode" || license != "MPL-2.0" {
		t.Errorf("patched copy: %s %s %s, want github.com/hashicorp/raft v1.7.3+idnode MPL-2.0", path, version, license)
	}
	other := &debug.Module{Path: "example.com/a", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/b", Version: "v2.0.0"}}
	if path, version, license := depOf(other, t.TempDir(), "../../.."); path != "example.com/b" || version != "v2.0.0" || license != noAssertion {
		t.Errorf("replaced by a module: %s %s %s, want example.com/b v2.0.0 %s", path, version, license, noAssertion)
	}
}

func TestSBOMRefusesAFileWithoutBuildInfo(t *testing.T) {
	notGo := filepath.Join(t.TempDir(), "README")
	if err := os.WriteFile(notGo, []byte("not a binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := buildSBOM("v1", time.Now(), t.TempDir(), ".", []string{notGo}); err == nil {
		t.Fatal("an SBOM of a file with no build information, want an error")
	}
}

func TestCacheDirEscapesUpperCase(t *testing.T) {
	cache := t.TempDir()
	want := filepath.Join(cache, "github.com", "!burnt!sushi", "toml@v1.5.0")
	if err := os.MkdirAll(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := cacheDir(cache, "github.com/BurntSushi/toml", "v1.5.0"); err != nil || got != want {
		t.Fatalf("cacheDir = %q, %v, want %q", got, err, want)
	}
}

func TestSumsListsFilesSortedWithoutItself(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"b": "b", "a": "a", sumsFile: "old"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := writeSums(&out, dir); err != nil {
		t.Fatal(err)
	}
	want := sha256Hex([]byte("a")) + "  a\n" + sha256Hex([]byte("b")) + "  b\n"
	if out.String() != want {
		t.Fatalf("sums:\n%s\nwant:\n%s", out.String(), want)
	}
}
