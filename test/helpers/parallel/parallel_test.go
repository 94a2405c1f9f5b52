package parallel

import (
	"flag"
	"testing"
)

// Default raises -parallel when the command line left it, and leaves a given one alone.
func TestDefault(t *testing.T) {
	f := flag.Lookup("test.parallel")
	before := f.Value.String()
	t.Cleanup(func() { _ = flag.Set("test.parallel", before) })
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })

	Default(7)
	want := "7"
	if given { // go test -parallel N: this run's command line gave it
		want = before
	}
	if got := f.Value.String(); got != want {
		t.Fatalf("-parallel %s (given: %v), then Default(7): %s, want %s", before, given, got, want)
	}
	// flag.Set marks the flag given, as the command line does.
	if err := flag.Set("test.parallel", "3"); err != nil {
		t.Fatal(err)
	}
	Default(9)
	if got := f.Value.String(); got != "3" {
		t.Errorf("-parallel 3 given, then Default(9): %s", got)
	}
}
