package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// checkQuery refuses (with a message naming them) query parameters the route's request has no field
// for, which grpc-gateway would drop, and parameters or body fields that disagree with what the
// body or the path says, which it would ignore: `POST /v1/ids?database=x` with a body wrote to
// "default", and `POST /v1/identities/a:seed {"name":"b"}` seeded a. A field given twice with the
// same value is fine. body is the request's body on a route that takes one.
func checkQuery(rt route, pathParams map[string]string, query url.Values, body []byte) error {
	input := rt.rpc.Input()
	keys := slices.Sorted(maps.Keys(query))
	var unknown []string
	for _, k := range keys {
		if _, ok := fieldPath(input, k); !ok {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("unknown query parameter %s (this route takes %s)", strings.Join(unknown, ", "), fieldNames(input))
	}
	if rt.rpc.IsStreamingClient() {
		if len(query) > 0 {
			return errors.New("no query parameters: the request is the body")
		}
		return nil
	}
	given := dynamicpb.NewMessage(input) // what the body and the path say
	if rt.body && len(body) > 0 && (len(query) > 0 || mayName(body, input, pathParams)) {
		if err := (protojson.UnmarshalOptions{}).Unmarshal(body, given); err != nil {
			return nil // the gateway refuses the body itself, naming what is wrong with it
		}
	}
	fromPath := dynamicpb.NewMessage(input)
	for name, v := range pathParams {
		if err := runtime.PopulateFieldFromPath(fromPath, name, v); err != nil {
			return err
		}
		path, ok := fieldPath(input, name)
		if !ok {
			return fmt.Errorf("path parameter %s is no field of the request", name)
		}
		if b, p := valueAt(given, path), valueAt(fromPath, path); !b.Equal(p) && given.Has(path[0]) {
			return fmt.Errorf("%s is %v in the body but %v in the path: leave it out of the body", name, b, p)
		}
		if err := runtime.PopulateFieldFromPath(given, name, v); err != nil {
			return err
		}
	}
	if len(query) == 0 {
		return nil
	}
	fromQuery := dynamicpb.NewMessage(input)
	if err := runtime.PopulateQueryParameters(fromQuery, query, &utilities.DoubleArray{}); err != nil {
		return err
	}
	for _, k := range keys {
		path, _ := fieldPath(input, k)
		_, inPath := pathParams[string(path[0].Name())]
		if !rt.body && !inPath {
			continue // the query is where this route's request comes from
		}
		if q, g := valueAt(fromQuery, path), valueAt(given, path); !q.Equal(g) {
			where := "body"
			if inPath {
				where = "path"
			}
			return fmt.Errorf("query parameter %s=%v disagrees with the %s (%v): give each field once, in the %s", k, q, where, g, where)
		}
	}
	return nil
}

// mayName reports whether body may set a field of a path parameter: it holds the proto or JSON
// name of a field on the parameter's path, or a backslash, with which a JSON string can spell
// any name. When it cannot, the body cannot disagree with the path, and decoding it a second
// time (the gateway decodes it too) would be most of the cost of a folded identity's checks.
func mayName(body []byte, md protoreflect.MessageDescriptor, pathParams map[string]string) bool {
	if bytes.IndexByte(body, '\\') >= 0 {
		return true
	}
	for name := range pathParams {
		path, ok := fieldPath(md, name)
		if !ok {
			return true // checkQuery refuses it
		}
		for _, fd := range path {
			if bytes.Contains(body, []byte(fd.Name())) || bytes.Contains(body, []byte(fd.JSONName())) {
				return true
			}
		}
	}
	return false
}

// fieldPath resolves a query parameter name ("page_size", "pageSize", "a.b") to its fields.
func fieldPath(md protoreflect.MessageDescriptor, name string) ([]protoreflect.FieldDescriptor, bool) {
	var path []protoreflect.FieldDescriptor
	for i, part := range strings.Split(name, ".") {
		if md == nil || (i > 0 && (path[i-1].IsList() || path[i-1].IsMap())) {
			return nil, false
		}
		fd := md.Fields().ByName(protoreflect.Name(part))
		if fd == nil {
			fd = md.Fields().ByJSONName(part)
		}
		if fd == nil {
			return nil, false
		}
		path = append(path, fd)
		md = fd.Message()
	}
	return path, true
}

// valueAt is the value at path in m (a field not set gives its default).
func valueAt(m proto.Message, path []protoreflect.FieldDescriptor) protoreflect.Value {
	msg := m.ProtoReflect()
	for _, fd := range path[:len(path)-1] {
		msg = msg.Get(fd).Message()
	}
	return msg.Get(path[len(path)-1])
}

// fieldNames lists a request's top-level fields, for a message about a wrong parameter.
func fieldNames(md protoreflect.MessageDescriptor) string {
	var names []string
	for i := range md.Fields().Len() {
		names = append(names, string(md.Fields().Get(i).Name()))
	}
	return strings.Join(names, ", ")
}
