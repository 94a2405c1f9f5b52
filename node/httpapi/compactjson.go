package httpapi

import (
	"bytes"
	"encoding/json"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
)

// compactJSON is the gateway's marshaller: protojson, whose output varies its spacing from
// build to build on purpose, made compact, so that an answer is the same bytes in every build
// (users diff, cache and sign them, and the README shows them). Every answer the gateway
// writes goes through Marshal: messages, errors and stream chunks.
type compactJSON struct{ runtime.JSONPb }

// answerJSON is the marshaller of every answer: the gateway's, and refuse's.
var answerJSON = &compactJSON{runtime.JSONPb{
	MarshalOptions: protojson.MarshalOptions{EmitUnpopulated: true},
	// Unknown fields are refused, not dropped: {"idd":"users|"} is a typo, not a GUID request.
	UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
}}

func (m *compactJSON) Marshal(v any) ([]byte, error) {
	data, err := m.JSONPb.Marshal(v)
	if err != nil {
		return nil, err
	}
	return compact(data)
}

// compact is data, valid JSON, without insignificant whitespace.
func compact(data []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(data))
	if err := json.Compact(&out, data); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
