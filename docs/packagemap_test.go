package docs

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// packageRowRE is a row of the package map: its first cell names one or more folders in
// backquotes.
var packageRowRE = regexp.MustCompile("^\\| *(`[^|]+) *\\|")

// listedPackages reads the folders that the "Packages" section of DESIGN.md names, from the
// repository root and without a trailing slash.
func listedPackages(t *testing.T) []string {
	t.Helper()
	text, err := os.ReadFile("DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), "\n## Packages\n")
	if !ok {
		t.Fatal("DESIGN.md has no ## Packages section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var listed []string
	for _, line := range strings.Split(section, "\n") {
		m := packageRowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, cell := range strings.Split(m[1], ",") {
			listed = append(listed, strings.TrimSuffix(strings.Trim(strings.TrimSpace(cell), "`"), "/"))
		}
	}
	if len(listed) == 0 {
		t.Fatal("DESIGN.md's Packages section has no table rows")
	}
	return listed
}

// goFolders returns the folders of the module that hold .go files, from the repository root.
func goFolders(t *testing.T) map[string]bool {
	t.Helper()
	folders := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			folders[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return folders
}

// DESIGN.md's package map matches the tree: every top-level folder with Go code in it or below
// it is listed (itself, or folders under it), so is every folder of internal/ with Go code,
// and every listed folder exists.
func TestPackageMap(t *testing.T) {
	listed := listedPackages(t)
	isListed := map[string]bool{}
	for _, p := range listed {
		isListed[p] = true
		if info, err := os.Stat(filepath.Join(root, p)); err != nil || !info.IsDir() {
			t.Errorf("DESIGN.md's package map lists %s, which is not a folder of the repository: drop its row", p)
		}
	}
	var missing []string
	for folder := range goFolders(t) {
		top, _, _ := strings.Cut(folder, "/")
		switch {
		case folder == ".":
		case top == "internal":
			if !isListed[folder] {
				missing = append(missing, folder)
			}
		case !isListed[top] && !listsUnder(listed, top):
			missing = append(missing, top)
		}
	}
	sort.Strings(missing)
	for i, m := range missing {
		if i == 0 || missing[i-1] != m {
			t.Errorf("%s holds Go code, but DESIGN.md's package map does not list it: add a row saying what it is", m)
		}
	}
}

// The top level shows the design: every folder at the top of the repository that git
// tracks is in the package map, itself or by a folder under it, so a new one comes with a row
// saying what it is, and the daemon's plumbing goes under internal/ rather than beside it.
func TestTopLevelIsMapped(t *testing.T) {
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	listed := listedPackages(t)
	isListed := map[string]bool{}
	for _, p := range listed {
		isListed[p] = true
	}
	seen := map[string]bool{}
	for _, file := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		top, _, isFolder := strings.Cut(file, "/")
		if !isFolder || strings.HasPrefix(top, ".") || seen[top] {
			continue
		}
		seen[top] = true
		if !isListed[top] && !listsUnder(listed, top) {
			t.Errorf("%s/ is at the top of the repository, but DESIGN.md's package map does not list it: add a row, or move it under internal/ if it is the daemon's plumbing", top)
		}
	}
}

// listsUnder reports whether a listed folder is inside top.
func listsUnder(listed []string, top string) bool {
	for _, p := range listed {
		if strings.HasPrefix(p, top+"/") {
			return true
		}
	}
	return false
}

// internal/ holds the leaf libraries: a package there whose non-test files import "testing" is
// a test helper, and goes under test/helpers with the others.
func TestInternalHoldsNoTestHelpers(t *testing.T) {
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range file.Imports {
			if imp.Path.Value == `"testing"` {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s imports testing: a helper only tests use goes under test/helpers, not internal/", filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
