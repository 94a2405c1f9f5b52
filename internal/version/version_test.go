package version

import (
	"runtime"
	"strings"
	"testing"
)

func TestLinkTimeValuesWin(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v1.2.3", "0123456789abcdef0123"
	i := Get()
	if i.Version != "v1.2.3" || i.Commit != "0123456789abcdef0123" || i.GoVersion != runtime.Version() {
		t.Fatalf("Get() = %+v", i)
	}
	i.Modified = false
	if want := "v1.2.3 (commit 0123456789ab, " + runtime.Version() + ")"; i.String() != want {
		t.Fatalf("String() = %q, want %q", i.String(), want)
	}
}

func TestWithoutLinkTimeValues(t *testing.T) {
	i := Get()
	if i.Version == "" || !strings.Contains(i.String(), "commit ") {
		t.Fatalf("Get() = %+v, String %q", i, i.String())
	}
	if (Info{Version: "(devel)", GoVersion: "go1"}).String() != "(devel) (commit unknown, go1)" {
		t.Fatal("an Info without a commit does not say so")
	}
}
