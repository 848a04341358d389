package gw

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is written from gw's calling threads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestLogger(t *testing.T) {
	resetMock(t)
	const secret = "sk-log-secret"
	var buf lockedBuffer
	SetLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	defer SetLogger(nil)

	c := newClient(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 503})
	if _, err := c.Chat(bg(), chatReq("x")); err != nil {
		t.Fatal(err)
	}
	bad := newClient(t, func(o *Options) { o.APIKey = secret })
	_, _ = bad.GenerateContent(bg(), "m", GenerateContentRequest{Contents: []NativeContent{{Role: "user", Parts: []NativePart{{Text: "x"}}}}})

	out := buf.String()
	if !strings.Contains(out, "retry") || !strings.Contains(out, "503") || !strings.Contains(out, "source=gw") {
		t.Fatalf("no retry line at info:\n%s", out)
	}
	if strings.Contains(out, "level=DEBUG") {
		t.Fatalf("debug lines past an info handler:\n%s", out)
	}
	if strings.Contains(out, secret) {
		t.Fatalf("key in the log:\n%s", out)
	}

	SetLogger(nil)
	before := buf.String()
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 503})
	if _, err := c.Chat(bg(), chatReq("x")); err != nil {
		t.Fatal(err)
	}
	if buf.String() != before {
		t.Fatal("logging went on after SetLogger(nil)")
	}
}
