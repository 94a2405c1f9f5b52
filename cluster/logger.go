package cluster

import (
	"context"
	"encoding"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hashicorp/go-hclog"
)

// newRaftLogger routes hashicorp/raft's hclog output into the node's slog logger, so a node
// writes one log stream in one format.
func newRaftLogger(l *slog.Logger) hclog.Logger {
	if l == nil {
		l = slog.Default()
	}
	il := hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "raft", Output: io.Discard, Level: hclog.Info})
	il.RegisterSink(slogSink{l})
	return il
}

// reservedKeys are keys a raft line may not use as they are: slog's own, and those the node's
// logger already carries ("node", its tag) or this sink adds. Raft says "node" for its own
// state; written twice, the key makes a JSON line that log pipelines reject.
var reservedKeys = map[string]bool{
	slog.TimeKey: true, slog.LevelKey: true, slog.MessageKey: true, slog.SourceKey: true,
	"node": true, "component": true,
}

type slogSink struct{ l *slog.Logger }

func (s slogSink) Accept(name string, level hclog.Level, msg string, args ...any) {
	lvl := slog.LevelInfo
	switch {
	case level <= hclog.Debug:
		lvl = slog.LevelDebug
	case level == hclog.Warn:
		lvl = slog.LevelWarn
	case level >= hclog.Error:
		lvl = slog.LevelError
	}
	attrs := make([]any, 0, len(args)+2)
	attrs = append(attrs, "component", name)
	seen := map[string]bool{}
	for i := 0; i+1 < len(args); i += 2 {
		key := fmt.Sprint(args[i])
		for reservedKeys[key] || seen[key] {
			key = "raft_" + key
		}
		seen[key] = true
		attrs = append(attrs, slog.Any(key, logValue(args[i+1])))
	}
	s.l.Log(context.Background(), lvl, msg, attrs...)
}

// logValue renders what raft passes as a value slog writes as such: raft hands over its own
// structs (the *Raft itself for "follower", "leader" …), whose unexported fields a JSON handler
// writes as {}. Numbers, strings, booleans, times and durations stay themselves; anything with
// a String, Error or MarshalText method says so; the rest is printed with its field names.
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
	return fmt.Sprintf("%+v", v)
}
