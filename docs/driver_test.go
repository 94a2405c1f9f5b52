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

// driverImports are the starts of the import paths of the database drivers the root module
// requires: pgx and go-sql-driver/mysql.
var driverImports = []string{"github.com/jackc/", "github.com/go-sql-driver/"}

// The root module requires pgx and go-sql-driver/mysql for idctl adopt alone
// (decisions/0043-idctl-adopt-reads-postgresql-with-pgx.md,
// decisions/0045-idctl-adopt-reads-mysql-with-go-sql-driver.md): no other program or library of
// the root may import them, so the node and the client stay without a driver. Tests may, as
// they reach no binary.
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
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, driver := range driverImports {
				if strings.HasPrefix(p, driver) {
					t.Errorf("%s imports %s: only cmd/idctl may (decisions 0043 and 0045)", rel, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
