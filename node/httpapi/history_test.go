package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/idnode/idnode/internal/history"
	"github.com/idnode/idnode/test/helpers/poll"
)

// GET /v1/history answers every series the node keeps, GET /v1/history/{series} one, and a
// series the node does not keep is 404 with the reason NOT_FOUND and the series it keeps.
func TestHistoryRoute(t *testing.T) {
	conn, err := grpc.NewClient("passthrough:///unused", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	rec := history.NewRecorder(history.Sources{
		DiskFree:      func() (uint64, error) { return 1 << 30, nil },
		LeaderChanges: func() []history.Mark { return []history.Mark{{AtMs: 1, Leader: "A", Term: 1}} },
	}, time.Hour, 10)
	go rec.Run(t.Context()) // Run samples once at once, then every hour
	h, err := newHandler(t.Context(), conn, newCallers(), Options{History: rec})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7080"+path, nil))
		return w
	}
	var all history.Answer
	poll.Until(t, "the first sample", 10*time.Second, 10*time.Millisecond, func() error {
		w := get("/v1/history")
		if w.Code != http.StatusOK {
			t.Fatalf("GET /v1/history = %d %s", w.Code, w.Body)
		}
		if err := json.Unmarshal(w.Body.Bytes(), &all); err != nil {
			t.Fatalf("GET /v1/history: %v in %s", err, w.Body)
		}
		if len(all.Times) == 0 {
			return errors.New("no sample yet")
		}
		return nil
	})
	var names []string
	for _, s := range all.Series {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, ","), strings.Join(history.Names(), ","); got != want {
		t.Errorf("GET /v1/history has series %s; want %s", got, want)
	}
	if len(all.LeaderChanges) != 1 || all.LeaderChanges[0].Leader != "A" {
		t.Errorf("leader changes %+v; want A's", all.LeaderChanges)
	}

	w := get("/v1/history/disk_free")
	var one history.Answer
	if err := json.Unmarshal(w.Body.Bytes(), &one); w.Code != http.StatusOK || err != nil {
		t.Fatalf("GET /v1/history/disk_free = %d %s (%v)", w.Code, w.Body, err)
	}
	if len(one.Series) != 1 || len(one.Series[0].Lines) != 1 || one.Series[0].Lines[0].Values[0] != 1<<30 {
		t.Errorf("GET /v1/history/disk_free: %s; want one line at 1 GiB", w.Body)
	}

	w = get("/v1/history/cpu")
	if w.Code != http.StatusNotFound {
		t.Fatalf("GET /v1/history/cpu = %d %s; want 404", w.Code, w.Body)
	}
	for _, want := range []string{`"reason":"NOT_FOUND"`, `no series \"cpu\"`, "disk_free"} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("GET /v1/history/cpu: %s lacks %s", w.Body, want)
		}
	}
}
