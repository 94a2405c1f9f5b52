package docid

import "testing"

func TestValidateNodeTag(t *testing.T) {
	for _, tag := range []string{"A", "Z", "ZA", "ABCD", "RAF", "TFAR"} {
		wantOK(t, ValidateNodeTag(tag))
	}
	tests := []struct{ in, rule string }{
		{"", "node tag is empty"},
		{"ABCDE", "node tag is longer than 4 letters"},
		{"RAFT", "node tag RAFT is reserved"},
		{"a", "node tag must be upper-case letters A-Z"},
		{"A1", "node tag must be upper-case letters A-Z"},
		{"Ä", "node tag must be upper-case letters A-Z"},
		{"A-B", "node tag must be upper-case letters A-Z"},
	}
	for _, tt := range tests {
		wantInvalid(t, ValidateNodeTag(tt.in), tt.rule, tt.in)
	}
}
