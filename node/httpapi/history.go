package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/internal/history"
)

// serveHistory answers GET /v1/history (every series the node keeps) and
// GET /v1/history/{series} (one) from the node's recorder, for the console's graphs. Like
// Status, what they say is open to any caller that reaches the port: the node's own rates,
// latency and clocks, nothing of a database's contents. A series the node does not keep is
// 404 naming those it does.
func serveHistory(mux *http.ServeMux, rec *history.Recorder) {
	answer := func(w http.ResponseWriter, names ...string) {
		a, err := rec.Read(names...)
		var unknown history.UnknownSeriesError
		if errors.As(err, &unknown) {
			refuse(w, http.StatusNotFound, codes.NotFound, "", "history: "+err.Error())
			return
		}
		body, err := json.Marshal(a)
		if err != nil {
			refuse(w, http.StatusInternalServerError, codes.Internal, "", "history: "+err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(body)
	}
	mux.HandleFunc("GET /v1/history", func(w http.ResponseWriter, _ *http.Request) { answer(w) })
	mux.HandleFunc("GET /v1/history/{series}", func(w http.ResponseWriter, r *http.Request) { answer(w, r.PathValue("series")) })
}
