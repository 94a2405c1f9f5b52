package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// GET /v1/backups answers the status as the console reads it: camelCase keys, a list that is
// never null, and no cache.
func TestBackupsAnswerTheSchedulersView(t *testing.T) {
	age := int64(90_000)
	for _, c := range []struct {
		status BackupStatus
		want   []string
	}{
		{BackupStatus{}, []string{`"scheduled":false`, `"backups":[]`}},
		{BackupStatus{Scheduled: true, Store: "backup folder /b", IntervalMs: 3_600_000, Leader: true, CheckedAtMs: 5, Count: 1,
			Backups:     []BackupEntry{{Name: "idnode-prod-20261127T210000Z.idbk", SizeBytes: 91, SlotMs: 1, StoredAtMs: 2, AgeMs: age}},
			NewestAgeMs: &age, Failures: 2, LastFailure: &BackupFailure{AtMs: 3, Error: "the disk is full"}},
			[]string{`"leader":true`, `"store":"backup folder /b"`, `"sizeBytes":91`, `"newestAgeMs":90000`, `"failures":2`, `"lastFailure":{"atMs":3,"error":"the disk is full"}`}},
	} {
		mux := http.NewServeMux()
		serveBackups(mux, func() BackupStatus { return c.status })
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/backups", nil))
		body := rec.Body.String()
		if rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") != "no-store" || !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("GET /v1/backups = %d %q: %s", rec.Code, rec.Header().Get("Cache-Control"), body)
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET /v1/backups = %s; want %s in it", body, w)
			}
		}
	}
}
