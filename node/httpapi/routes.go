package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// route is one HTTP route of the gateway, read from its OpenAPI description, so the routes
// the gateway serves and the ones checked here cannot drift apart.
type route struct {
	method   string                        // GET, POST, DELETE
	segments []string                      // the path template split at "/": "v1", "identities", "{name}:next"
	body     bool                          // the request message comes as the JSON body
	rpc      protoreflect.MethodDescriptor // the RPC the route calls
}

// routeTable is every route of the gateway.
type routeTable []route

// readRoutes reads the routes of an OpenAPI 2.0 description made by protoc-gen-openapiv2: each
// operation's operationId (Service_Method, maybe with a number) names the RPC.
func readRoutes(openapi []byte) (routeTable, error) {
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []struct {
				In string `json:"in"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapi, &doc); err != nil {
		return nil, fmt.Errorf("OpenAPI description: %w", err)
	}
	var routes routeTable
	for path, ops := range doc.Paths {
		for method, op := range ops {
			md, err := rpcOf(op.OperationID)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, path, err)
			}
			r := route{method: strings.ToUpper(method), segments: strings.Split(strings.TrimPrefix(path, "/"), "/"), rpc: md}
			for _, p := range op.Parameters {
				r.body = r.body || p.In == "body"
			}
			routes = append(routes, r)
		}
	}
	return routes, nil
}

// rpcOf finds the RPC of an operationId: "IdService_Generate" is idnode.v1.IdService/Generate.
func rpcOf(operationID string) (protoreflect.MethodDescriptor, error) {
	service, method, ok := strings.Cut(operationID, "_")
	if !ok {
		return nil, fmt.Errorf("operationId %q is not Service_Method", operationID)
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName("idnode.v1." + service))
	if err != nil {
		return nil, fmt.Errorf("operationId %q: %w", operationID, err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("operationId %q: %s is not a service", operationID, service)
	}
	md := sd.Methods().ByName(protoreflect.Name(strings.TrimRight(method, "0123456789")))
	if md == nil {
		return nil, fmt.Errorf("operationId %q: no method %s", operationID, method)
	}
	return md, nil
}

// match reports whether a path, split at "/" (escaped, as sent), fits the route's template,
// and its path parameters (unescaped) by name.
func (rt route) match(segs []string) (map[string]string, bool) {
	if len(segs) != len(rt.segments) {
		return nil, false
	}
	for i, tmpl := range rt.segments {
		if !strings.HasPrefix(tmpl, "{") && segs[i] != tmpl {
			return nil, false // most routes differ in a fixed segment: no map made for them
		}
	}
	params := map[string]string{}
	for i, tmpl := range rt.segments {
		if !strings.HasPrefix(tmpl, "{") {
			continue
		}
		name, verb, _ := strings.Cut(strings.TrimPrefix(tmpl, "{"), "}") // "{name}:next" → "name", ":next"
		raw, ok := strings.CutSuffix(segs[i], verb)
		if !ok || raw == "" {
			return nil, false
		}
		v, err := url.PathUnescape(raw)
		if err != nil {
			return nil, false
		}
		params[name] = v
	}
	return params, true
}

// lookup finds the route of method and path. When the path has routes but none for method,
// allowed lists their methods (for 405 and Allow); when it has none, both are empty.
func (t routeTable) lookup(method, escapedPath string) (rt route, params map[string]string, allowed []string) {
	segs := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	for _, r := range t {
		p, ok := r.match(segs)
		if !ok {
			continue
		}
		if r.method == method {
			return r, p, nil
		}
		if !slices.Contains(allowed, r.method) {
			allowed = append(allowed, r.method)
		}
	}
	slices.Sort(allowed)
	return route{}, nil, allowed
}

// methodCheck answers 405 with Allow for a method the path has no route for (grpc-gateway
// says 501), and lets the gateway answer a path with no route at all (404).
func (t routeTable) methodCheck(w http.ResponseWriter, r *http.Request) (route, map[string]string, bool) {
	rt, params, allowed := t.lookup(r.Method, r.URL.EscapedPath())
	if rt.rpc != nil || len(allowed) == 0 {
		return rt, params, true
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	refuse(w, http.StatusMethodNotAllowed, codes.Unimplemented, "",
		fmt.Sprintf("%s %s: this path takes %s only", r.Method, r.URL.Path, strings.Join(allowed, ", ")))
	return route{}, nil, false
}

// String names the route as a client writes it: "POST /v1/ids".
func (rt route) String() string { return rt.method + " /" + strings.Join(rt.segments, "/") }
