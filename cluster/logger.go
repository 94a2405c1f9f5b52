package cluster

import (
	"context"
	"fmt"
	"io"
	"log/slog"

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
	for i := 0; i+1 < len(args); i += 2 {
		v := args[i+1]
		if f, ok := v.(hclog.Format); ok && len(f) > 0 {
			v = fmt.Sprintf(fmt.Sprint(f[0]), f[1:]...)
		}
		attrs = append(attrs, fmt.Sprint(args[i]), v)
	}
	s.l.Log(context.Background(), lvl, msg, attrs...)
}
