// Package console is idnode's web console: plain HTML, CSS and JavaScript embedded
// in the binary and served at /ui/ on the HTTP port, so it works offline and behind TLS with
// nothing fetched from elsewhere. The page calls only the public HTTP/JSON API (/v1/…,
// /readyz) from the browser, with the caller's own credential: it shows nothing, and can do
// nothing, that the caller could not ask for with curl.
package console

import (
	"embed"
	"io/fs"
	"net/http"
)

// Path is where the console is served; a request for Path without its slash is redirected.
const Path = "/ui/"

//go:embed ui
var files embed.FS

// securityHeaders keep the page to its own files: scripts and styles only from this node (no
// inline script, so injected markup cannot run), calls only to this node's API, and no other
// site may frame it (clickjacking of the admin actions).
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
		"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
	"X-Frame-Options":        "DENY",
	"Cache-Control":          "no-cache",
}

// Handler serves the console's files under Path.
func Handler() http.Handler {
	ui, err := fs.Sub(files, "ui")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	static := http.StripPrefix(Path, http.FileServerFS(ui))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range securityHeaders {
			w.Header().Set(k, v)
		}
		static.ServeHTTP(w, r)
	})
}

// Register serves the console on mux: GET (and HEAD) Path and below, and Path without its
// slash redirected there.
func Register(mux *http.ServeMux) {
	mux.Handle("GET "+Path, Handler())
	mux.Handle("GET "+Path[:len(Path)-1], http.RedirectHandler(Path, http.StatusMovedPermanently))
}
