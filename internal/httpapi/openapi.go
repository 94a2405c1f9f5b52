package httpapi

import (
	"encoding/json"
	"fmt"
)

// describeExtra is what the served OpenAPI description adds to the one generated from the
// routes (gateway.OpenAPI): how callers authenticate, and the probes, which are no RPCs.
const describeExtra = `{
  "securityDefinitions": {
    "bearer": {
      "type": "apiKey",
      "in": "header",
      "name": "Authorization",
      "description": "\"Bearer <token>\": the cluster's admin token (idnode --admin-token) for admin calls, or an API key (POST /v1/keys, idctl key create) for its database's calls once the cluster has keys. With TLS a verified client certificate marked admin is admin too. Without any credential configured, admin calls are taken from loopback only, and ID calls from anyone."
    }
  },
  "security": [{"bearer": []}, {}],
  "paths": {
    "/healthz": {"get": {
      "summary": "Liveness: the process serves HTTP.",
      "operationId": "Healthz",
      "tags": ["Probes"],
      "produces": ["text/plain"],
      "security": [],
      "responses": {"200": {"description": "ok"}}
    }},
    "/readyz": {"get": {
      "summary": "Readiness: every strategy serves (a quorum for identities and HiLo); with local=true, the strategies a node serves alone (server-side IDs, GUIDs, semantic IDs).",
      "operationId": "Readyz",
      "tags": ["Probes"],
      "produces": ["text/plain"],
      "security": [],
      "parameters": [{"name": "local", "in": "query", "required": false, "type": "boolean"}],
      "responses": {"200": {"description": "ready"}, "503": {"description": "not ready, and why"}}
    }}
  }
}`

// describe is the OpenAPI description idnode serves: generated plus describeExtra.
func describe(generated []byte) ([]byte, error) {
	var doc, extra map[string]any
	if err := json.Unmarshal(generated, &doc); err != nil {
		return nil, fmt.Errorf("OpenAPI description: %w", err)
	}
	if err := json.Unmarshal([]byte(describeExtra), &extra); err != nil {
		return nil, fmt.Errorf("OpenAPI additions: %w", err)
	}
	paths, _ := doc["paths"].(map[string]any)
	if paths == nil {
		return nil, fmt.Errorf("OpenAPI description has no paths")
	}
	for p, v := range extra["paths"].(map[string]any) {
		paths[p] = v
	}
	doc["securityDefinitions"], doc["security"] = extra["securityDefinitions"], extra["security"]
	return json.Marshal(doc)
}
