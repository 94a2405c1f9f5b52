package docs

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// layer is a set of folders and the layers their packages may import. Imports inside one
// layer are free (Go refuses a cycle anyway); an import of a layer not listed runs back up
// the stack.
type layer struct {
	name      string
	folders   []string // folders from the repository root; a folder holds the ones under it
	mayImport []string // other layers' names
}

// layers is the order DESIGN.md's package map describes, from the bottom: libraries that know
// no node, the state the log applies to, Raft and identities, the gRPC services, the node
// assembled from them, and the programs and tests that run it. The client is a branch of its
// own beside the node's stack: it takes the libraries and nothing of a node.
var layers = []layer{
	{name: "library", folders: []string{"docid", "reason", "proto", "flake", "flakelease", "opaque", "hilo", "internal"}},
	{name: "series", folders: []string{"series"}, mayImport: []string{"library"}},
	{name: "fsm", folders: []string{"fsm"}, mayImport: []string{"library", "series"}},
	{name: "consensus", folders: []string{"cluster", "identity"}, mayImport: []string{"library", "series", "fsm"}},
	{name: "server", folders: []string{"server"}, mayImport: []string{"library", "series", "fsm", "consensus"}},
	{name: "node", folders: []string{"node"}, mayImport: []string{"library", "series", "fsm", "consensus", "server"}},
	{name: "client", folders: []string{"client"}, mayImport: []string{"library"}},
	// internal/cmd holds the project's own tools (release, test report, prebuild, flake
	// finder): programs like cmd/, kept under internal/ because no one else runs them.
	{name: "programs", folders: []string{"cmd", "internal/cmd", "test", "deploy", "docs"},
		mayImport: []string{"library", "series", "fsm", "consensus", "server", "node", "client"}},
}

// testHelpers are what any package's tests may import, whatever its layer.
const testHelpers = "test/helpers"

// Every import in the module runs down the layers: no library imports the server, no server
// imports the node, no FSM imports the server. A package's own tests are held to its layer too,
// apart from the shared test helpers; an external test package (package x_test) uses the
// package from outside, as a program does, so it may build what it needs from above: server's
// run it inside a node assembled by node.Start, as cmd/idnode's are.
func TestImportsRunDownTheLayers(t *testing.T) {
	module, err := modulePath(root)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := layerViolations(root, module, layers)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// The check finds an import up the layers in a library, a server and an FSM, in a package's
// own test file, and a folder in no layer; it lets an external test package and the test
// helpers be, and an import down the layers.
func TestLayerViolationsFindsImportsUpTheLayers(t *testing.T) {
	dir := t.TempDir()
	const m = "example.com/m"
	src := map[string]string{
		"go.mod":                  "module " + m + "\n",
		"internal/x/x.go":         "package x\nimport _ \"" + m + "/server\"\n",
		"internal/y/y.go":         "package y\nimport _ \"" + m + "/docid\"\n",
		"server/s.go":             "package server\nimport (\n_ \"" + m + "/node\"\n_ \"" + m + "/fsm\"\n)\n",
		"server/in_test.go":       "package server\nimport (\n_ \"" + m + "/client\"\n_ \"" + m + "/test/helpers/poll\"\n)\n",
		"server/out_test.go":      "package server_test\nimport _ \"" + m + "/node\"\n",
		"fsm/f.go":                "package fsm\nimport (\n_ \"fmt\"\n_ \"" + m + "/server\"\n)\n",
		"node/n.go":               "package node\nimport _ \"" + m + "/server\"\n",
		"client/c.go":             "package client\nimport _ \"" + m + "/fsm\"\n",
		"cmd/idnode/main.go":      "package main\nimport _ \"" + m + "/node\"\n",
		"newtop/a.go":             "package newtop\n",
		"other/go.mod":            "module example.com/other\n",
		"other/o.go":              "package other\nimport _ \"" + m + "/node\"\n",
		"docid/testdata/bad.go":   "package bad\nimport _ \"" + m + "/node\"\n",
		"test/helpers/poll/p.go":  "package poll\n",
		"internal/cmd/tool/t.go":  "package main\nimport _ \"" + m + "/test/helpers/poll\"\n",
		"internal/y/y_extra.go":   "package y\nimport _ \"" + m + "/hilo\"\n",
		"internal/x/x_helper.go":  "package x\n",
		"proto/idnode/v1/api.go":  "package idnodev1\n",
		"proto/idnode/v1/use.go":  "package idnodev1\nimport _ \"" + m + "/internal/y\"\n",
		"server/unrelated_doc.md": "not Go\n",
	}
	for name, text := range src {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	module, err := modulePath(dir)
	if err != nil || module != m {
		t.Fatalf("modulePath = %q, %v; want %q", module, err, m)
	}
	got, err := layerViolations(dir, m, layers)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"client/c.go imports fsm: a client package (client) may import only client, library",
		"fsm/f.go imports server: a fsm package (fsm) may import only fsm, library, series",
		"internal/x/x.go imports server: a library package (internal) may import only library",
		"newtop is in no layer: add it to docs/layers_test.go's layers and DESIGN.md's package map",
		"server/in_test.go imports client: a server package (server) may import only server, library, series, fsm, consensus",
		"server/s.go imports node: a server package (server) may import only server, library, series, fsm, consensus",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// layerViolations walks the module at root and describes, sorted, every import of one of
// its packages that the importer's layer may not make, and every folder with Go code that is
// in no layer. Nested modules and testdata are left out.
func layerViolations(root, module string, layers []layer) ([]string, error) {
	var problems []string
	unplaced := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" || isModule(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		folder := filepath.ToSlash(filepath.Dir(rel))
		from, fromFolder, ok := layerOf(layers, folder)
		if !ok {
			unplaced[folder] = true
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		isTest := strings.HasSuffix(rel, "_test.go")
		if isTest && strings.HasSuffix(file.Name.Name, "_test") {
			return nil
		}
		for _, spec := range file.Imports {
			imported, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			target, ok := strings.CutPrefix(imported, module+"/")
			if !ok {
				continue
			}
			if isTest && (target == testHelpers || strings.HasPrefix(target, testHelpers+"/")) {
				continue
			}
			to, _, ok := layerOf(layers, target)
			if !ok || to.name == from.name || slices.Contains(from.mayImport, to.name) {
				continue
			}
			allowed := append([]string{from.name}, from.mayImport...)
			problems = append(problems, fmt.Sprintf("%s imports %s: a %s package (%s) may import only %s",
				rel, target, from.name, fromFolder, strings.Join(allowed, ", ")))
		}
		return nil
	})
	for folder := range unplaced {
		problems = append(problems, folder+" is in no layer: add it to docs/layers_test.go's layers and DESIGN.md's package map")
	}
	sort.Strings(problems)
	return problems, err
}

// layerOf finds the layer of a folder by the longest of the layers' folders that holds it.
func layerOf(layers []layer, folder string) (layer, string, bool) {
	var found layer
	var best string
	for _, l := range layers {
		for _, f := range l.folders {
			if (folder == f || strings.HasPrefix(folder, f+"/")) && len(f) > len(best) {
				found, best = l, f
			}
		}
	}
	return found, best, best != ""
}

// modulePath reads the module's path from root's go.mod.
func modulePath(root string) (string, error) {
	text, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(text), "\n") {
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(path), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod names no module", root)
}

// isModule reports whether a folder is the root of a module of its own.
func isModule(folder string) bool {
	_, err := os.Stat(filepath.Join(folder, "go.mod"))
	return err == nil
}
