package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// recipes are the pages that walk a contributor through the files a change touches: a file
// or function renamed under them would send the next reader to something that is not there.
var recipes = []string{"adding-an-operation.md", "adding-a-strategy.md"}

// The recipes name only what exists: every repository path they put in backquotes is a file
// or folder of the tree (or, marked ", a new file", one whose folder is), every file name one
// of the tree's files, and every Go name one the module (or its protos) declares.
func TestRecipesNameWhatExists(t *testing.T) {
	names := declaredNames(t, root)
	files := fileNames(t, root)
	for _, page := range recipes {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range recipeProblems(string(text), root, names, files) {
			t.Errorf("%s: %s", page, p)
		}
	}
}

// The check finds a path, a file name and a Go name that are not in the tree, and lets be
// a new file in a folder that exists, a route, a plain word and a code block.
func TestRecipeProblemsFindsWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fsm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fsm", "fsm.go"), []byte("package fsm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "1. `fsm/fsm.go`: the `commands` table, `fsm.Propose` and `Applier`.\n" +
		"2. `fsm/gone.go` and `fsm/gone/`.\n" +
		"3. `fsm/new.go`, a new file, and `srv/new.go`, a new file.\n" +
		"4. `POST /v1/ids`, `crypto/rand`, `raft.proto` and `fsm.go`.\n" +
		"5. `forward.Call(s.fwd, ctx)` and `missingCall(ctx)`; `func (st *state) applyNew()`.\n" +
		"```\n`fsm/inblock.go`\n```\n"
	names := map[string]bool{"Propose": true, "Call": true}
	files := map[string]bool{"fsm.go": true}
	got := recipeProblems(text, dir, names, files)
	want := []string{
		"`Applier` names a Go name no file of the module declares",
		"`fsm/gone.go` is not in the tree",
		"`fsm/gone/` is not in the tree",
		"`srv/new.go` is a new file in srv, which is not a folder of the tree",
		"`raft.proto` names a file the tree does not hold",
		"`missingCall(ctx)` names a Go name no file of the module declares",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var (
	codeSpanRE = regexp.MustCompile("`([^`]+)`")
	// repoPathRE is a span shaped like a path: segments joined by slashes, no spaces.
	repoPathRE = regexp.MustCompile(`^(\./)?[A-Za-z0-9_.*-]+(/[A-Za-z0-9_.*-]*)+$`)
	// fileNameRE is a file's name: no slash, and an extension the tree's files have.
	fileNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.(go|proto|py|pyi|ts|java|json|yaml|md|sh)$`)
	// goNameRE is a Go name or a selector (fsm.Propose, s.arriving); callRE a call's name.
	goNameRE = regexp.MustCompile(`^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$`)
	callRE   = regexp.MustCompile(`^(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\(`)
)

// recipeProblems checks the backquoted spans of a page outside code blocks against the tree
// at root, the Go names the module declares and the names of the tree's files.
func recipeProblems(text, root string, names, files map[string]bool) []string {
	var problems []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range codeSpanRE.FindAllStringSubmatchIndex(line, -1) {
			span := line[m[2]:m[3]]
			newFile := strings.HasPrefix(line[m[1]:], ", a new file")
			if p := spanProblem(span, newFile, root, names, files); p != "" {
				problems = append(problems, p)
			}
		}
	}
	return problems
}

// spanProblem says what is wrong with one backquoted span, or "" when nothing is or it is not
// a name the check knows: a path whose first folder is not at the top of the tree (a route,
// a standard library package) or a plain lower-case word.
func spanProblem(span string, newFile bool, root string, names, files map[string]bool) string {
	switch {
	case repoPathRE.MatchString(span):
		path := strings.TrimPrefix(span, "./")
		top, _, _ := strings.Cut(path, "/")
		if _, err := os.Stat(filepath.Join(root, top)); err != nil && !newFile {
			return "" // not the repository's: crypto/rand, a route
		}
		if newFile {
			if info, err := os.Stat(filepath.Join(root, filepath.Dir(path))); err != nil || !info.IsDir() {
				return "`" + span + "` is a new file in " + filepath.Dir(path) + ", which is not a folder of the tree"
			}
			return ""
		}
		if found, _ := filepath.Glob(filepath.Join(root, path)); len(found) == 0 {
			return "`" + span + "` is not in the tree"
		}
	case fileNameRE.MatchString(span):
		if !files[span] {
			return "`" + span + "` names a file the tree does not hold"
		}
	case goNameRE.MatchString(span):
		parts := strings.Split(span, ".")
		last := parts[len(parts)-1]
		if len(parts) == 1 && strings.ToLower(last) == last {
			return "" // a plain word: a field of a message, a value
		}
		if !names[last] {
			return "`" + span + "` names a Go name no file of the module declares"
		}
	default:
		if m := callRE.FindStringSubmatch(span); m != nil && !strings.HasPrefix(span, "func ") && !names[m[1]] {
			return "`" + span + "` names a Go name no file of the module declares"
		}
	}
	return ""
}

// protoDeclRE is a service, message, enum or RPC a .proto file declares.
var protoDeclRE = regexp.MustCompile(`(?m)^\s*(?:service|message|enum|rpc)\s+(\w+)`)

// declaredNames is every name the Go files of the module at root declare (functions,
// methods, types, constants, variables, struct fields and interface methods) and every
// service, message, enum and RPC of its .proto files.
func declaredNames(t *testing.T, root string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".proto") {
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range protoDeclRE.FindAllStringSubmatch(string(text), -1) {
				names[m[1]] = true
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				names[n.Name.Name] = true
			case *ast.TypeSpec:
				names[n.Name.Name] = true
			case *ast.ValueSpec:
				for _, id := range n.Names {
					names[id.Name] = true
				}
			case *ast.Field:
				for _, id := range n.Names {
					names[id.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// fileNames is the name of every file in the tree at root, outside .git and node_modules.
func fileNames(t *testing.T, root string) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			files[d.Name()] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
