package main

import "fmt"

// maxRegionLen bounds a region label: it travels in every hello and every log line about
// leadership placement.
const maxRegionLen = 64

// validRegion accepts an empty label (none) or one of at most maxRegionLen letters, digits,
// '-', '_' and '.', as cloud regions and zones are named (eu-west-1, us-east1-b).
func validRegion(label string) error {
	if len(label) > maxRegionLen {
		return fmt.Errorf("a region label has at most %d characters, got %d", maxRegionLen, len(label))
	}
	for _, r := range label {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("region label %q may hold only letters, digits, '-', '_' and '.'", label)
		}
	}
	return nil
}
