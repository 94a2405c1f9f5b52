package postgres

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// applicationName is what InTransaction accepts as an application's name: it goes into SQL
// text, so nothing that needs quoting.
var applicationName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,63}$`)

// DSNFor is the server's DSN with application_name set to app, so that an application's
// connections can be told apart in pg_stat_activity.
func (s *Server) DSNFor(app string) string {
	return s.DSN + "&application_name=" + url.QueryEscape(app)
}

// InTransaction lists the connections of application app (its application_name) that are
// inside a transaction at the moment of the query, as "pid state" ("4242 idle in
// transaction"): none while the application waits for something outside of one.
func (s *Server) InTransaction(ctx context.Context, app string) ([]string, error) {
	if !applicationName.MatchString(app) {
		return nil, fmt.Errorf("application name %q: want 1 to 63 of A-Z a-z 0-9 _ -", app)
	}
	out, err := s.Psql(ctx, "SELECT pid || ' ' || state FROM pg_stat_activity WHERE application_name = '"+app+
		"' AND xact_start IS NOT NULL AND pid <> pg_backend_pid()")
	if err != nil {
		return nil, err
	}
	var conns []string
	for line := range strings.Lines(out) {
		if line = strings.TrimSpace(line); line != "" {
			conns = append(conns, line)
		}
	}
	return conns, nil
}
