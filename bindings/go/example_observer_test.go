package gw_test

import (
	"context"
	"expvar"
	"fmt"
	"log"
	"log/slog"
	"os"
	"strconv"

	"github.com/gw-dev/gw/bindings/go"
)

// attemptMetrics is an Observer built on the standard library only: a log line per
// attempt (log/slog) and counters by status (expvar, served on /debug/vars by
// net/http's default mux). An OpenTelemetry or Prometheus one has the same shape: start
// a span (keep it in a.State) in AttemptStart, end it and observe a histogram in
// AttemptEnd.
type attemptMetrics struct {
	log      *slog.Logger
	byStatus *expvar.Map
}

func (m attemptMetrics) AttemptStart(ctx context.Context, a *gw.Attempt) {}

func (m attemptMetrics) AttemptEnd(ctx context.Context, a *gw.Attempt) {
	m.byStatus.Add(strconv.Itoa(a.Status), 1)
	m.log.InfoContext(ctx, "gw attempt", "op", a.Operation, "method", a.Method, "path", a.Path,
		"attempt", a.Number, "status", a.Status, "duration", a.Duration, "request_id", a.RequestID,
		"request_bytes", a.RequestBytes)
}

func ExampleObserver() {
	// Without time, duration and request id, so the output below stays the same.
	hide := map[string]bool{slog.TimeKey: true, "duration": true, "request_id": true, "request_bytes": true}
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if hide[a.Key] {
				return slog.Attr{}
			}
			return a
		},
	}))
	metrics := attemptMetrics{log: logger, byStatus: expvar.NewMap("gw_attempts_by_status")}

	c, err := gw.NewClient(gw.Options{Observer: metrics})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	_, err = c.Chat(context.Background(), gw.ChatRequest{
		Model: "my-model", Messages: []gw.Message{gw.UserMessage("Hello!")},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(metrics.byStatus.String())
	// Output:
	// level=INFO msg="gw attempt" op=chat method=POST path=/v1/chat/completions attempt=1 status=200
	// {"200": 1}
}
