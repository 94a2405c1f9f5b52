package console

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func serve(t *testing.T, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	mux := http.NewServeMux()
	Register(mux)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

// The page and its files are served with the headers that keep it to itself.
func TestTheConsoleIsServedWithItsHeaders(t *testing.T) {
	for _, tc := range []struct{ path, contentType string }{
		{"/ui/", "text/html"},
		{"/ui/console.js", "text/javascript"},
		{"/ui/console.css", "text/css"},
	} {
		rec := serve(t, http.MethodGet, tc.path)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.contentType) {
			t.Errorf("GET %s = %d %q; want 200 %s", tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.contentType)
		}
		for k, v := range securityHeaders {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("GET %s: %s = %q; want %q", tc.path, k, got, v)
			}
		}
	}
	if rec := serve(t, http.MethodGet, "/ui"); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != Path {
		t.Errorf("GET /ui = %d to %q; want a redirect to %s", rec.Code, rec.Header().Get("Location"), Path)
	}
	if rec := serve(t, http.MethodPost, "/ui/"); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /ui/ = %d; want 405", rec.Code)
	}
	if rec := serve(t, http.MethodGet, "/ui/nope.js"); rec.Code != http.StatusNotFound {
		t.Errorf("GET /ui/nope.js = %d; want 404", rec.Code)
	}
}

// Nothing of the page comes from elsewhere (it must work offline, and a CDN would see every
// operator), no script is inline (the policy forbids it, so it would not run), and the page
// calls only this node's API: fetch paths are absolute on this origin.
func TestTheConsoleLoadsNothingFromElsewhere(t *testing.T) {
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`)
	inline := regexp.MustCompile(`(?i)<script(\s[^>]*)?>\s*[^<\s]|\son[a-z]+\s*=`)
	fetches := regexp.MustCompile("(?:api|send|stream)\\((?:\\s*'[A-Z]+',)?\\s*['\"`]([^'\"`]*)")
	calls := 0
	err := fs.WalkDir(files, "ui", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(data)
		if m := external.FindString(text); m != "" {
			t.Errorf("%s loads from elsewhere: %q", path, m)
		}
		if strings.HasSuffix(path, ".html") && inline.MatchString(text) {
			t.Errorf("%s has inline script: %q", path, inline.FindString(text))
		}
		for _, m := range fetches.FindAllStringSubmatch(text, -1) {
			calls++
			if p := m[1]; !strings.HasPrefix(p, "/v1/") && p != "/readyz" {
				t.Errorf("%s calls %q: only this node's public API (/v1/…, /readyz)", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Error("found no api(…) call in the console's files: the check of what it calls checked nothing")
	}
}
