package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idnode/idnode/proto/idnode/v1/gateway"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

// The body checks before the gateway: a Content-Length over the limit is 413 with not a byte
// read, a chunked body over it 413, a non-JSON body 415, and bodies beyond the memory budget
// 503 until the one holding it is done.
func TestStrictBodies(t *testing.T) {
	routes, err := readRoutes(gateway.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	const limit, memory = 1000, 1500
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			t.Errorf("next reads the body: %v", err)
		}
		if r.Header.Get("Hold") != "" {
			entered <- struct{}{}
			<-release
		}
	})
	h := strict(routes, limit, &bodyBudget{free: memory}, next)
	send := func(body io.Reader, length int64, contentType string, header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/v1/ids", body)
		r.ContentLength = length
		r.Header.Set("Content-Type", contentType)
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	big := &countingReader{r: strings.NewReader(strings.Repeat(" ", 100_000))}
	if w := send(big, 100_000, "application/json"); w.Code != http.StatusRequestEntityTooLarge || big.read != 0 {
		t.Errorf("Content-Length over the limit = %d after reading %d bytes; want 413 before reading", w.Code, big.read)
	}
	if w := send(strings.NewReader(strings.Repeat(" ", 5000)), -1, "application/json"); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked body over the limit = %d; want 413", w.Code)
	}
	if w := send(strings.NewReader(`{}`), 2, "text/plain"); w.Code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain body = %d; want 415", w.Code)
	}
	if w := send(strings.NewReader(`{}`), 2, "application/json; charset=utf-8"); w.Code != http.StatusOK {
		t.Errorf("JSON body = %d %s; want 200", w.Code, w.Body)
	}

	held := make(chan int)
	go func() {
		held <- send(strings.NewReader(strings.Repeat(" ", limit)), limit, "application/json", "Hold", "1").Code
	}()
	<-entered
	w := send(strings.NewReader(strings.Repeat(" ", limit)), limit, "application/json")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("a body beyond the memory budget = %d (Retry-After %q); want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	if w := send(strings.NewReader(" "), 100_000, "application/json"); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("Content-Length over the limit while the budget is taken = %d; want 413", w.Code)
	}
	if w := send(strings.NewReader(strings.Repeat(" ", memory-limit)), memory-limit, "application/json"); w.Code != http.StatusOK {
		t.Errorf("a body that fits beside the held one = %d; want 200", w.Code)
	}
	close(release)
	if code := <-held; code != http.StatusOK {
		t.Errorf("the held request = %d; want 200", code)
	}
	if w := send(strings.NewReader(strings.Repeat(" ", limit)), limit, "application/json"); w.Code != http.StatusOK {
		t.Errorf("after the held request is done = %d; want 200 (its bytes given back)", w.Code)
	}
}
