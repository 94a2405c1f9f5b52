package waitparallel

import (
	"flag"
	"testing"
)

func TestDefaultLeavesAGivenNumber(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 7},
		{[]string{"-test.v"}, 7},
		{[]string{"-test.parallel=2"}, 2},
		{[]string{"-test.parallel", "1"}, 1},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		parallel := fs.Int("test.parallel", 3, "")
		fs.Bool("test.v", false, "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if err := defaultIn(fs, 7); err != nil {
			t.Fatal(err)
		}
		if *parallel != tc.want {
			t.Errorf("args %q: test.parallel = %d; want %d", tc.args, *parallel, tc.want)
		}
	}
}

func TestDefaultNeedsTheFlag(t *testing.T) {
	if err := defaultIn(flag.NewFlagSet("test", flag.ContinueOnError), 4); err == nil {
		t.Error("defaultIn set a flag the set does not have")
	}
}
