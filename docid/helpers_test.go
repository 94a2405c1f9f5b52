package docid

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// wantInvalid fails unless err is a *ValidationError for rule whose message names the rule and
// shows value, shortened the way every message shortens it.
func wantInvalid(t *testing.T, err error, rule, value string) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *ValidationError %q", err, rule)
	}
	if ve.Rule != rule {
		t.Errorf("rule = %q, want %q", ve.Rule, rule)
	}
	if want := shorten(value); ve.Value != want {
		t.Errorf("value = %q, want %q", ve.Value, want)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, rule+": ") || !strings.Contains(msg, strconv.Quote(shorten(value))) {
		t.Errorf("message %q does not name rule %q and show value %q", msg, rule, value)
	}
}

func wantOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}
