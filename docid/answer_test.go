package docid

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// The largest count ValidateAnswerSize accepts must produce an answer within the limit, and one
// more must be refused: checked against a real GenerateResponse of the longest IDs.
func TestValidateAnswerSizeAtTheEdge(t *testing.T) {
	for _, tc := range []struct {
		kind   Kind
		prefix string
		id     func(int64) string
	}{
		{Identity, strings.Repeat("p", 1000), func(int64) string {
			return IdentityID(strings.Repeat("p", 1000), '/', 1<<63-1)
		}},
		{ServerSide, strings.Repeat("q", 1995) + "/", func(int64) string {
			return ServerSideID(strings.Repeat("q", 1995)+"/", 1<<64-1, "ZZZZ")
		}},
		{GUID, "", func(int64) string { return "0194c0de-7e4f-7a3b-9c2d-1e0f3a5b6c7d" }},
	} {
		fits := int64(1)
		for ValidateAnswerSize(tc.kind, tc.prefix, '/', fits*2) == nil {
			fits *= 2
		}
		for step := fits / 2; step > 0; step /= 2 {
			if ValidateAnswerSize(tc.kind, tc.prefix, '/', fits+step) == nil {
				fits += step
			}
		}
		var ve *ValidationError
		if err := ValidateAnswerSize(tc.kind, tc.prefix, '/', fits+1); !errors.As(err, &ve) || !strings.Contains(ve.Rule, "answer limit") {
			t.Errorf("%v: count %d refused with %v, want a ValidationError naming the limit", tc.kind, fits+1, err)
		}
		resp := &idnodev1.GenerateResponse{Ids: make([]string, fits)}
		for i := range resp.Ids {
			resp.Ids[i] = tc.id(int64(i))
		}
		if size := proto.Size(resp); size > MaxAnswerBytes {
			t.Errorf("%v: %d IDs accepted, but their answer is %d bytes, above %d", tc.kind, fits, size, MaxAnswerBytes)
		}
	}
}
