package server

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/idnode/idnode/proto/idnode/v1" // the requests the test walks
)

// checkRequestID reads a request's request_id through its generated getter. Every request of
// the API that has the field is walked here, so one whose id would pass unchecked fails.
func TestEveryRequestIDIsBounded(t *testing.T) {
	t.Parallel()
	var checked []string
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		d := mt.Descriptor()
		fd := d.Fields().ByName("request_id")
		if d.ParentFile().Package() != "idnode.v1" || !strings.HasSuffix(string(d.Name()), "Request") || fd == nil {
			return true
		}
		checked = append(checked, string(d.Name()))
		for _, size := range []int{maxRequestIDBytes, maxRequestIDBytes + 1} {
			m := mt.New()
			m.Set(fd, protoreflect.ValueOfString(strings.Repeat("r", size)))
			err := checkRequestID(m.Interface())
			if refused := err != nil; refused != (size > maxRequestIDBytes) {
				t.Errorf("%s with a %d-byte request_id: %v", d.Name(), size, err)
			}
		}
		return true
	})
	if len(checked) < 8 {
		t.Fatalf("walked only %v; want every request with a request_id", checked)
	}
	t.Logf("checked %s", strings.Join(checked, ", "))
}
