package docid

import "testing"

func TestValidateCount(t *testing.T) {
	ok := []struct {
		kind       Kind
		count, max int64
	}{
		{Semantic, 1, DefaultMaxCount},
		{GUID, 1, DefaultMaxCount},
		{GUID, DefaultMaxCount, DefaultMaxCount},
		{ServerSide, 50, 50},
		{Identity, 100_000, 0}, // unset max means the default
		{Identity, 5, -1},
	}
	for _, tt := range ok {
		wantOK(t, ValidateCount(tt.kind, tt.count, tt.max))
	}
	tests := []struct {
		kind       Kind
		count, max int64
		rule       string
		value      string
	}{
		{GUID, 0, DefaultMaxCount, "count must be at least 1", "0"},
		{Identity, -5, DefaultMaxCount, "count must be at least 1", "-5"},
		{Semantic, 2, DefaultMaxCount, "count must be 1 for a semantic id", "2"},
		{Semantic, 0, DefaultMaxCount, "count must be at least 1", "0"},
		{ServerSide, 51, 50, "count is above the maximum of 50 per call", "51"},
		{Identity, 100_001, 0, "count is above the maximum of 100000 per call", "100001"},
	}
	for _, tt := range tests {
		wantInvalid(t, ValidateCount(tt.kind, tt.count, tt.max), tt.rule, tt.value)
	}
}

func TestValidateSeed(t *testing.T) {
	wantOK(t, ValidateSeed(0))
	wantOK(t, ValidateSeed(1<<62))
	wantInvalid(t, ValidateSeed(-1), "seed value is negative", "-1")
}
