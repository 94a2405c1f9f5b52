package cluster

import (
	"context"
	"encoding"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// raftSink routes hashicorp/raft's hclog output into the node's slog logger, so a node writes
// one log stream in one format and one key style (snake_case, as idnode's own lines), with
// raft's values written as values. Raft's repeated complaints about one peer are summarised
// (peerlog.go).
type raftSink struct {
	l *slog.Logger

	mu    sync.Mutex
	ids   map[raft.ServerAddress]raft.ServerID // learned from raft's servers, to name a peer raft gives only by address
	peers *peerFailures

	// firstElection is whether the election raft last started began with no leader known.
	firstElection atomic.Bool
}

// newRaftSink returns the sink for one node's raft; close it after raft has shut down.
func newRaftSink(l *slog.Logger) *raftSink {
	if l == nil {
		l = slog.Default()
	}
	s := &raftSink{l: l, ids: map[raft.ServerAddress]raft.ServerID{}}
	s.peers = newPeerFailures(s.log, peerSummaryInterval, afterFunc)
	return s
}

// hclog is the logger raft is given.
func (s *raftSink) hclog() hclog.Logger {
	il := hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "raft", Output: io.Discard, Level: hclog.Info})
	il.RegisterSink(s)
	return il
}

// close writes what the summaries still hold; later raft lines are written as they come.
func (s *raftSink) close() { s.peers.close() }

func (s *raftSink) log(level slog.Level, msg string, attrs []any) {
	s.l.Log(context.Background(), level, msg, attrs...)
}

// reservedKeys are keys a raft line may not use as they are: slog's own, and those the node's
// logger already carries ("node", its tag) or this sink adds. Raft says "node" for its own
// state; written twice, the key makes a JSON line that log pipelines reject.
var reservedKeys = map[string]bool{
	slog.TimeKey: true, slog.LevelKey: true, slog.MessageKey: true, slog.SourceKey: true,
	"node": true, "component": true,
}

// peerKeys are the keys under which raft names the peer a line is about.
var peerKeys = map[string]bool{"peer": true, "target": true, "server_id": true}

// raftLine is one raft line as this sink writes it.
type raftLine struct {
	attrs    []any
	seen     map[string]bool
	peer     string // the peer the line is about (its ID when known, else its address); "" for none
	err      string // raft's "error", if any
	shutdown bool   // the line reports raft's own transport shutting down
}

func (l *raftLine) add(key string, v any) {
	for reservedKeys[key] || l.seen[key] {
		key = "raft_" + key
	}
	l.seen[key] = true
	l.attrs = append(l.attrs, key, v)
}

func (s *raftSink) Accept(name string, level hclog.Level, msg string, args ...any) {
	lvl := slog.LevelInfo
	switch {
	case level <= hclog.Debug:
		lvl = slog.LevelDebug
	case level == hclog.Warn:
		lvl = slog.LevelWarn
	case level >= hclog.Error:
		lvl = slog.LevelError
	}
	line := s.render(name, args)
	switch {
	case line.shutdown:
		// The node is stopping and closed its own transport: raft reports the connections
		// it was serving as failed, which they are not.
		lvl = min(lvl, slog.LevelDebug)
	case msg == "heartbeat timeout reached, starting election":
		// No leader was known: the node has just started (or its last election failed, which
		// raft reports itself). After a leader was lost this stays a warning.
		first := arg(args, "last-leader-id") == ""
		s.firstElection.Store(first)
		if first {
			lvl = slog.LevelInfo
		}
	case msg == "Election timeout reached, restarting election" && s.firstElection.Load():
		// A split vote, or votes that came too late, in that first election: raft's
		// randomised timeouts make the next round likely to decide, and a cluster forming
		// on a busy machine meets this. A leader lost and not replaced stays a warning.
		lvl = slog.LevelInfo
	case msg == "rejecting vote request since we have a leader", msg == "rejecting pre-vote request since we have a leader":
		// Two nodes stood at once (most often in a cluster's first election): one won, and
		// the other's request reached a node that already follows the winner. Or a node that
		// heard no heartbeat in time asked whether it might stand (a pre-vote), and a node
		// that hears the leader said no, which is what pre-votes are for. Nothing is wrong
		// here; a candidate that stood after losing its leader warns itself.
		lvl = min(lvl, slog.LevelInfo)
	case msg == "rejecting vote request since our last term is greater", msg == "rejecting vote request since our last index is greater",
		msg == "rejecting pre-vote request since our last term is greater", msg == "rejecting pre-vote request since our last index is greater":
		// A node whose log lags this one's asked to stand: the refusal is what keeps a node
		// that missed entries from leading. A cluster forming on a busy machine meets it when
		// a node times out before the first leader's entries reach it; the node that stood
		// reports its own failed election.
		lvl = min(lvl, slog.LevelInfo)
	}
	if line.peer != "" && lvl >= slog.LevelWarn {
		s.peers.failed(line.peer, msg, line.err, line.attrs)
		return
	}
	s.log(lvl, msg, line.attrs)
}

// arg returns the value of key in raft's key/value list, formatted, or "" when key is absent.
func arg(args []any, key string) string {
	for i := 0; i+1 < len(args); i += 2 {
		if fmt.Sprint(args[i]) == key {
			return fmt.Sprint(args[i+1])
		}
	}
	return ""
}

// render turns raft's key/value list into slog attributes: snake_case keys, values as values.
// A raft.Server under key k becomes k (its ID) and k_address; a bare address under k (raft's
// heartbeat names the peer so) becomes k_address, and k its ID when a configuration named it.
func (s *raftSink) render(name string, args []any) raftLine {
	line := raftLine{attrs: append(make([]any, 0, len(args)+2), "component", name), seen: map[string]bool{"component": true}}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i+1 < len(args); i += 2 {
		key, v := snakeCase(fmt.Sprint(args[i])), args[i+1]
		switch v := v.(type) {
		case raft.Server:
			s.learn(v)
			line.add(key, string(v.ID))
			line.add(key+"_address", string(v.Address))
			if peerKeys[key] {
				line.peer = string(v.ID)
			}
		case raft.ServerAddress:
			if strings.HasSuffix(key, "address") || strings.HasSuffix(key, "addr") {
				line.add(key, string(v))
				continue
			}
			id, known := s.ids[v]
			if known {
				line.add(key, string(id))
			}
			line.add(key+"_address", string(v))
			if peerKeys[key] {
				line.peer = string(v)
				if known {
					line.peer = string(id)
				}
			}
		case raft.ServerID:
			line.add(key, string(v))
			if peerKeys[key] {
				line.peer = string(v)
			}
		case hclog.Format:
			if servers, ok := formattedServers(v); ok {
				for _, srv := range servers {
					s.learn(srv)
				}
				line.add(key, serverValues(servers))
				continue
			}
			line.add(key, logValue(v))
		case error:
			if errors.Is(v, raft.ErrTransportShutdown) {
				line.shutdown = true
			}
			if key == "error" {
				line.err = v.Error()
			}
			line.add(key, v.Error())
		default:
			line.add(key, logValue(v))
		}
	}
	return line
}

func (s *raftSink) learn(srv raft.Server) {
	s.ids[srv.Address] = srv.ID
}

// formattedServers recognises raft's configuration lines (hclog.Fmt("%+v", servers)).
func formattedServers(f hclog.Format) ([]raft.Server, bool) {
	if len(f) != 2 {
		return nil, false
	}
	servers, ok := f[1].([]raft.Server)
	return servers, ok
}

// serverValue is a raft.Server as a log line writes it.
type serverValue struct {
	ID       string `json:"id"`
	Address  string `json:"address"`
	Suffrage string `json:"suffrage"`
}

func serverValues(servers []raft.Server) []serverValue {
	out := make([]serverValue, 0, len(servers))
	for _, srv := range servers {
		out = append(out, serverValue{ID: string(srv.ID), Address: string(srv.Address), Suffrage: strings.ToLower(srv.Suffrage.String())})
	}
	return out
}

// snakeCase writes raft's keys ("leader-address", "votesNeeded", "backoff time") in idnode's
// style: lower case, words joined by "_".
func snakeCase(key string) string {
	var b strings.Builder
	gap, lower := false, false // a separator is pending; the previous rune was lower case or a digit
	for _, r := range key {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			gap, lower = b.Len() > 0, false
			continue
		}
		if gap || unicode.IsUpper(r) && lower {
			b.WriteByte('_')
		}
		gap, lower = false, !unicode.IsUpper(r)
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// logValue renders what raft passes as a value slog writes as such: raft hands over its own
// structs (the *Raft itself for "follower", "leader" …), whose unexported fields a JSON handler
// writes as {}. Numbers, strings, booleans, times and durations stay themselves (also when
// raft gives them a type of its own); anything with a String, Error or MarshalText method says
// so; the rest is printed with its field names.
func logValue(v any) any {
	switch v := v.(type) {
	case nil, string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64,
		time.Time, time.Duration:
		return v
	case hclog.Format:
		if len(v) == 0 {
			return ""
		}
		return fmt.Sprintf(fmt.Sprint(v[0]), v[1:]...)
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	case encoding.TextMarshaler:
		if b, err := v.MarshalText(); err == nil {
			return string(b)
		}
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return rv.Uint()
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	}
	return fmt.Sprintf("%+v", v)
}
