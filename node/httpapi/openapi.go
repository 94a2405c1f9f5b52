package httpapi

import (
	"encoding/json"
	"fmt"
)

// describeExtra is what the served OpenAPI description adds to the one generated from the
// routes (gateway.OpenAPI): how callers authenticate, and the probes and the console's
// history and backups, which are no RPCs.
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
    }},
    "/v1/history": {"get": {
      "summary": "The node's last hour, for the console's graphs: the sample times (Unix ms), every series it keeps (ids, identity_latency, commit_rate, disk_free, clock_offset) with a value per time or null, and the leadership changes (docs/console.md).",
      "operationId": "History",
      "tags": ["Console"],
      "security": [],
      "responses": {"200": {"description": "intervalMs, capacity, times, series, leaderChanges"}}
    }},
    "/v1/history/{series}": {"get": {
      "summary": "One series of the node's last hour, as GET /v1/history answers it.",
      "operationId": "HistorySeries",
      "tags": ["Console"],
      "security": [],
      "parameters": [{"name": "series", "in": "path", "required": true, "type": "string"}],
      "responses": {"200": {"description": "intervalMs, capacity, times, series, leaderChanges"}, "404": {"description": "a series the node does not keep (reason NOT_FOUND)"}}
    }},
    "/v1/backups": {"get": {
      "summary": "The cluster's scheduled backups as this node knows them, for the console: the store, the newest backups (name, size, slot, stored at, age), the newest's age, and this node's failures. The leader takes them; a follower shows what it saw when it last led (docs/scheduled-backups.md).",
      "operationId": "Backups",
      "tags": ["Console"],
      "security": [],
      "responses": {"200": {"description": "scheduled, store, intervalMs, leader, checkedAtMs, count, backups, newestAgeMs, failures, lastFailure"}}
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
