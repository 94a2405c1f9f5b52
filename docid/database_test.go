package docid

import (
	"strings"
	"testing"
)

func TestValidateDatabaseName(t *testing.T) {
	for _, ok := range []string{"default", "Billing", "b", "shop-eu_1.v2", "9lives", strings.Repeat("x", 64)} {
		if err := ValidateDatabaseName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-x", ".x", "_x", "a b", "a/b", "a|b", "é", strings.Repeat("x", 65)} {
		if err := ValidateDatabaseName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
