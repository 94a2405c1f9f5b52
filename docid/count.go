package docid

import (
	"fmt"
	"strconv"
)

// DefaultMaxCount is the default limit on IDs per call: it bounds the size of one Raft entry and
// of one answer.
const DefaultMaxCount = 100_000

// ValidateCount checks count for a request of kind k against max; a max below 1 (an unset
// setting) means DefaultMaxCount. Callers turn an omitted count (0) into 1 before calling.
func ValidateCount(k Kind, count, max int64) error {
	if max < 1 {
		max = DefaultMaxCount
	}
	value := strconv.FormatInt(count, 10)
	switch {
	case count < 1:
		return invalid("count must be at least 1", value)
	case k == Semantic && count > 1:
		// A semantic ID is echoed, so more than one would be the same ID twice.
		return invalid("count must be 1 for a semantic id", value)
	case count > max:
		return invalid(fmt.Sprintf("count is above the maximum of %d per call", max), value)
	}
	return nil
}

// ValidateSeed checks a SeedIdentity value or a SeedHiLo max: counters start at 0 and only hand
// out positive values.
func ValidateSeed(value int64) error {
	if value < 0 {
		return invalid("seed value is negative", strconv.FormatInt(value, 10))
	}
	return nil
}
