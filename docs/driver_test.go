package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// driverImport is the start of the one database driver's import paths the root module requires.
const driverImport = "github.com/jackc/"

// The root module requires pgx for idctl adopt alone
// (decisions/0043-idctl-adopt-reads-postgresql-with-pgx.md): no other program or library of
// the root may import it, so the node and the client stay without a driver. Tests may, as they
// reach no binary.
func TestOnlyIdctlImportsTheDatabaseDriver(t *testing.T) {
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
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "test/") || strings.HasPrefix(rel, "cmd/idctl/") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range file.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, driverImport) {
				t.Errorf("%s imports %s: only cmd/idctl may (decision 0043)", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
