package main

import (
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
	"unicode"

	"github.com/idnode/idnode/internal/filesum"
)

// errBadFlags is a sbom call without the flags that make its document reproducible.
var errBadFlags = errors.New("sbom needs -version, -created and at least one binary")

// The SPDX 2.3 JSON document (https://spdx.github.io/spdx-spec/v2.3/), only the fields used.
type spdxDoc struct {
	SPDXVersion       string             `json:"spdxVersion"`
	DataLicense       string             `json:"dataLicense"`
	SPDXID            string             `json:"SPDXID"`
	Name              string             `json:"name"`
	DocumentNamespace string             `json:"documentNamespace"`
	CreationInfo      spdxCreation       `json:"creationInfo"`
	DocumentDescribes []string           `json:"documentDescribes"`
	Packages          []spdxPackage      `json:"packages"`
	Relationships     []spdxRelationship `json:"relationships"`
}

type spdxCreation struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	Name             string         `json:"name"`
	SPDXID           string         `json:"SPDXID"`
	VersionInfo      string         `json:"versionInfo"`
	PackageFileName  string         `json:"packageFileName,omitempty"`
	DownloadLocation string         `json:"downloadLocation"`
	FilesAnalyzed    bool           `json:"filesAnalyzed"`
	Checksums        []spdxChecksum `json:"checksums,omitempty"`
	LicenseConcluded string         `json:"licenseConcluded"`
	LicenseDeclared  string         `json:"licenseDeclared"`
	CopyrightText    string         `json:"copyrightText"`
	ExternalRefs     []spdxRef      `json:"externalRefs"`
}

type spdxChecksum struct {
	Algorithm     string `json:"algorithm"`
	ChecksumValue string `json:"checksumValue"`
}

type spdxRef struct {
	ReferenceCategory string `json:"referenceCategory"`
	ReferenceType     string `json:"referenceType"`
	ReferenceLocator  string `json:"referenceLocator"`
}

type spdxRelationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

const noAssertion = "NOASSERTION"

func runSBOM(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("sbom", flag.ContinueOnError)
	version := fs.String("version", "", "the release's version, as stamped into the binaries")
	created := fs.String("created", "", "the document's time, RFC 3339 (the commit's, so a rebuild writes the same document)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || *created == "" || fs.NArg() == 0 {
		return errBadFlags
	}
	at, err := time.Parse(time.RFC3339, *created)
	if err != nil {
		return fmt.Errorf("-created %q: want RFC 3339, like 2026-11-23T20:00:00Z: %w", *created, err)
	}
	modCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	// make dist runs it from the repository's root, which directory replacements are relative to.
	doc, err := buildSBOM(*version, at, strings.TrimSpace(string(modCache)), ".", fs.Args())
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // purl qualifiers are joined with &
	return enc.Encode(doc)
}

// buildSBOM describes each binary as a package that contains the modules and the Go standard
// library its embedded build information names (depOf: a module replaced by a directory is
// read relative to root).
func buildSBOM(version string, created time.Time, modCache, root string, binaries []string) (*spdxDoc, error) {
	doc := &spdxDoc{
		SPDXVersion:  "SPDX-2.3",
		DataLicense:  "CC0-1.0",
		SPDXID:       "SPDXRef-DOCUMENT",
		Name:         "idnode-" + version,
		CreationInfo: spdxCreation{Created: created.UTC().Format(time.RFC3339), Creators: []string{"Tool: idnode internal/cmd/release"}},
	}
	ids := map[string]string{} // path@version → SPDXID, so each module is listed once
	dep := func(path, version, license string) string {
		key := path + "@" + version
		if id, ok := ids[key]; ok {
			return id
		}
		id := fmt.Sprintf("SPDXRef-Package-%d", len(ids)+1)
		ids[key] = id
		doc.Packages = append(doc.Packages, spdxPackage{
			Name: path, SPDXID: id, VersionInfo: version, DownloadLocation: noAssertion,
			LicenseConcluded: license, LicenseDeclared: license, CopyrightText: noAssertion,
			ExternalRefs: []spdxRef{purl(path, version, "")},
		})
		return id
	}
	var sums []string
	for i, bin := range binaries {
		bi, err := buildinfo.ReadFile(bin)
		if err != nil {
			return nil, fmt.Errorf("%s: no Go build information: %w", bin, err)
		}
		sum, err := filesum.SHA256(bin)
		if err != nil {
			return nil, err
		}
		sums = append(sums, sum)
		id := fmt.Sprintf("SPDXRef-Binary-%d", i+1)
		var goos, goarch string
		for _, s := range bi.Settings {
			switch s.Key {
			case "GOOS":
				goos = s.Value
			case "GOARCH":
				goarch = s.Value
			}
		}
		doc.DocumentDescribes = append(doc.DocumentDescribes, id)
		doc.Packages = append(doc.Packages, spdxPackage{
			Name: filepath.Base(bi.Path), SPDXID: id, VersionInfo: version, PackageFileName: filepath.Base(bin),
			DownloadLocation: noAssertion, Checksums: []spdxChecksum{{"SHA256", sum}},
			LicenseConcluded: "Apache-2.0", LicenseDeclared: "Apache-2.0", CopyrightText: noAssertion,
			ExternalRefs: []spdxRef{purl(bi.Main.Path, version, "?goos="+goos+"&goarch="+goarch)},
		})
		rel := func(related string) {
			doc.Relationships = append(doc.Relationships, spdxRelationship{id, "CONTAINS", related})
		}
		doc.Relationships = append(doc.Relationships, spdxRelationship{"SPDXRef-DOCUMENT", "DESCRIBES", id})
		rel(dep("stdlib", bi.GoVersion, "BSD-3-Clause"))
		for _, m := range bi.Deps {
			rel(dep(depOf(m, modCache, root)))
		}
	}
	// The namespace must be unique to this document: the binaries' checksums make it so.
	doc.DocumentNamespace = fmt.Sprintf("https://github.com/idnode/idnode/spdx/%s-%s", version, shortHash(strings.Join(sums, "")))
	return doc, nil
}

// depOf is how the document names a module a binary contains, and its licence, read from the
// module's copy in modCache (NOASSERTION when it is not there). A module replaced by another
// is the replacement. One replaced by a directory, a patched copy in this repository
// (third_party), keeps its path and version, marked +idnode, and its licence is read from
// that directory, relative to root.
func depOf(m *debug.Module, modCache, root string) (path, version, license string) {
	path, version, dir := m.Path, m.Version, ""
	switch r := m.Replace; {
	case r != nil && r.Version == "":
		version += "+idnode"
		dir = filepath.Join(root, filepath.FromSlash(r.Path))
	case r != nil:
		path, version = r.Path, r.Version
	}
	if dir == "" {
		dir, _ = cacheDir(modCache, path, version)
	}
	if dir == "" {
		return path, version, noAssertion
	}
	license, _, err := licenseOf(dir)
	if err != nil {
		return path, version, noAssertion
	}
	return path, version, license
}

func purl(path, version, qualifiers string) spdxRef {
	return spdxRef{"PACKAGE-MANAGER", "purl", "pkg:golang/" + path + "@" + version + qualifiers}
}

// cacheDir is where the module cache keeps a module: upper-case letters are escaped as '!'
// and the lower-case letter (golang.org/x/mod/module.EscapePath, without the dependency).
func cacheDir(modCache, path, version string) (string, error) {
	var b strings.Builder
	for _, r := range path + "@" + version {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	dir := filepath.Join(modCache, filepath.FromSlash(b.String()))
	if _, err := os.Stat(dir); err != nil {
		return "", err
	}
	return dir, nil
}

func shortHash(s string) string {
	sum := sha256Hex([]byte(s))
	return sum[:16]
}
