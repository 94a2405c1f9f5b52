package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// trackerRefRE finds a reference a reader of the repository cannot follow: the number of an
// issue in a tracker that is not in the repository (one number, two joined by "and", or a
// range), or a numbered section of a document that has none. "A series issues 5,847/s" is a
// verb and a figure, not a reference.
var trackerRefRE = regexp.MustCompile(`(?i)\bissue #?\d+|\bissues #?\d+(?: and |–)\d+|§ ?\d`)

// No Go file, proto file, shell script or document outside CHANGELOG.md refers to an issue
// number or a numbered section: each says the reason, or links the decision record or the
// heading that holds it. Generated protobuf code is skipped: its comments come from the
// .proto files, which are read.
func TestNoTrackerReferences(t *testing.T) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// third_party is another project's code, with its own references, kept as it came.
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules" || d.Name() == "third_party") {
			return filepath.SkipDir
		}
		if d.IsDir() || !referencesChecked(d.Name()) {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for i, line := range strings.Split(string(text), "\n") {
			if m := trackerRefRE.FindString(line); m != "" {
				t.Errorf("%s:%d: %q refers to what a reader cannot follow: say the reason, or link the decision record or heading", filepath.ToSlash(rel), i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// referencesChecked reports whether TestNoTrackerReferences reads the file named name.
func referencesChecked(name string) bool {
	switch {
	case name == "CHANGELOG.md", strings.HasSuffix(name, ".pb.go"):
		return false
	}
	for _, ext := range []string{".go", ".sh", ".md", ".proto"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}
