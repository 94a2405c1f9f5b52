package docs

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxPageBytes is the most a page of docs/ may hold: one sitting's reading.
const maxPageBytes = 20 * 1024

// pages lists the Markdown pages of docs/ and its folders, relative to docs/.
func pages(t *testing.T) []string {
	t.Helper()
	var ps []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			ps = append(ps, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestPageSizes(t *testing.T) {
	for _, p := range pages(t) {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() > maxPageBytes {
			t.Errorf("docs/%s is %d bytes, over %d: move a section to a page of its own and link it from docs/README.md",
				p, info.Size(), maxPageBytes)
		}
	}
}

// mdLinks returns the absolute paths of the .md files that file links to.
func mdLinks(t *testing.T, file string) []string {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, m := range linkRE.FindAllStringSubmatch(string(text), -1) {
		path, _, _ := strings.Cut(m[1], "#")
		if strings.Contains(path, "://") || !strings.HasSuffix(path, ".md") {
			continue
		}
		targets = append(targets, absolute(t, filepath.Join(filepath.Dir(file), path)))
	}
	return targets
}

func absolute(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// The index (docs/README.md) links every page of docs/ and the index of the decision records,
// and every page of docs/ and its folders is at most two clicks from the repository's README.
func TestIndexLinksEveryPage(t *testing.T) {
	linked := map[string]bool{}
	for _, target := range mdLinks(t, "README.md") {
		linked[target] = true
	}
	for _, p := range pages(t) {
		if p == "README.md" || (strings.Contains(p, string(filepath.Separator)) && filepath.Base(p) != "README.md") {
			continue
		}
		if !linked[absolute(t, p)] {
			t.Errorf("docs/README.md does not link docs/%s", p)
		}
	}

	readme := absolute(t, filepath.Join(root, "README.md"))
	near := map[string]bool{readme: true}
	frontier := []string{readme}
	for click := 0; click < 2; click++ {
		var next []string
		for _, file := range frontier {
			for _, target := range mdLinks(t, file) {
				if !near[target] {
					near[target] = true
					next = append(next, target)
				}
			}
		}
		frontier = next
	}
	var far []string
	for _, p := range pages(t) {
		if !near[absolute(t, p)] {
			far = append(far, "docs/"+p)
		}
	}
	sort.Strings(far)
	for _, p := range far {
		t.Errorf("%s is more than two clicks from README.md: link it from docs/README.md", p)
	}
}
