package main

import (
	"flag"
	"fmt"
	"time"
)

// collectingValue wraps a flag's value so that a bad value does not stop the parse: its error
// is collected, saying what the flag expects, and every bad value of the command line, the
// environment and the config file is reported in one go instead of one per attempt.
type collectingValue struct {
	flag.Value
	name string
	bad  *valueErrors
}

// valueErrors are the bad values found so far.
type valueErrors struct {
	errs []error
	// origin names where the values being set now come from (IDNODE_TAG, a config file's key);
	// "" for the command line.
	origin string
}

// Set records a bad value instead of failing the parse, and puts the flag's value back (the
// flag package's numbers are 0 after a failed Set), so no second error follows from the first.
func (v collectingValue) Set(s string) error {
	old := v.Value.String()
	if err := v.Value.Set(s); err != nil {
		_ = v.Value.Set(old)
		where := "--" + v.name
		if v.bad.origin != "" {
			where = v.bad.origin
		}
		v.bad.errs = append(v.bad.errs, fmt.Errorf("%s %q: %s", where, s, expectation(v.Value, err)))
	}
	return nil
}

// String is the wrapped flag's value. The flag package also calls it on a zero
// collectingValue, to tell a default worth printing in -h from a zero one: with no flag
// wrapped that is "", where the promoted method would dereference nil.
func (v collectingValue) String() string {
	if v.Value == nil {
		return ""
	}
	return v.Value.String()
}

// IsBoolFlag keeps `--pprof` (no value) working for the boolean flags behind the wrapper.
func (v collectingValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// expectation says what a flag of v's type expects, because the flag package says only
// "parse error".
func expectation(v flag.Value, err error) string {
	g, ok := v.(flag.Getter)
	if !ok {
		return err.Error()
	}
	switch g.Get().(type) {
	case time.Duration:
		return "expected a duration like 1s, 500ms or 2m"
	case bool:
		return "expected true or false"
	case int, int64, uint, uint64:
		return "expected a whole number"
	}
	return err.Error()
}

// collectErrors wraps every flag of fs; bad gathers their bad values.
func collectErrors(fs *flag.FlagSet, bad *valueErrors) {
	fs.VisitAll(func(f *flag.Flag) {
		f.Value = collectingValue{Value: f.Value, name: f.Name, bad: bad}
	})
}
