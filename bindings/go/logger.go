package gw

import (
	"context"
	"log/slog"
	"sync/atomic"
)

var logger atomic.Pointer[slog.Logger]

// SetLogger sends gw's log lines (one per attempt, retry with its reason and delay,
// redirect, stream end and failure; keys redacted) to l, at the levels l is enabled for.
// It is process-wide; nil turns logging off.
func SetLogger(l *slog.Logger) {
	if l == nil {
		logger.Store(nil)
		setLogLevel(0)
		return
	}
	logger.Store(l)
	max := 0
	for gwLevel := 1; gwLevel <= 5; gwLevel++ {
		if l.Enabled(context.Background(), slogLevel(gwLevel)) {
			max = gwLevel
		}
	}
	setLogLevel(max)
}

// slogLevel maps GW_LOG_ERROR..GW_LOG_TRACE (1..5) to slog levels; trace is below debug.
func slogLevel(gwLevel int) slog.Level {
	switch gwLevel {
	case 1:
		return slog.LevelError
	case 2:
		return slog.LevelWarn
	case 3:
		return slog.LevelInfo
	case 4:
		return slog.LevelDebug
	}
	return slog.LevelDebug - 4
}

func logLine(gwLevel int, message string) {
	if l := logger.Load(); l != nil {
		l.Log(context.Background(), slogLevel(gwLevel), message, "source", "gw")
	}
}
