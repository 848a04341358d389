package gw

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// After a stream's [DONE] a chunked body still has its last chunk to come. Over net/http
// gw reads on to the body's end, so the connection goes back to the pool, but only for
// drainWait: a server that never ends the body costs the call that, not the read timeout.

// dialCounting is an http.Client whose transport counts the connections it opens.
func dialCounting() (*http.Client, *atomic.Int32) {
	var dials atomic.Int32
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, addr)
	}}
	return &http.Client{Transport: tr}, &dials
}

// streamText reads a chat stream to its end and returns its text.
func streamText(t *testing.T, c *Client, prompt string) string {
	t.Helper()
	s, err := c.ChatStream(bg(), chatReq(prompt))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var text strings.Builder
	for ev, err := range s.Events() {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(ev.TextDelta)
	}
	return text.String()
}

// A server whose last chunk comes a moment after [DONE] (in a later TCP segment, as
// proxies that flush per event send it): the drain reads it, so the next stream takes the
// pooled connection. gw-mock sends the last chunk with [DONE], which net/http reads as
// the body's end without any drain, so this server is the test's own.
func TestStreamsOneAfterAnotherShareAConnection(t *testing.T) {
	const chunk = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",` +
		`"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}` + "\n\ndata: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chunk)
		w.(http.Flusher).Flush()
		time.Sleep(time.Millisecond) // then the handler returns and the last chunk is sent
	}))
	defer srv.Close()
	hc, dials := dialCounting()
	c := newClient(t, func(o *Options) { o.BaseURL = srv.URL; o.HTTPClient = hc })
	const streams = 4
	for i := range streams {
		if got := streamText(t, c, "x"); got != "hi" {
			t.Fatalf("stream %d: %q", i, got)
		}
	}
	// Each would have its own connection without the drain. A drain may give up on a
	// loaded machine (drainWait is 10 ms), so one pooled connection is enough to pass.
	t.Logf("%d streams, one after another, opened %d connections", streams, dials.Load())
	if n := dials.Load(); n >= streams {
		t.Errorf("%d streams opened %d connections: none went back to the pool", streams, n)
	}
}

func TestBodyHeldOpenAfterDoneCostsTheDrainOnly(t *testing.T) {
	resetMock(t)
	const chunk = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",` +
		`"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}` +
		"\n\ndata: [DONE]\n\n"
	head := "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "raw", "then": "hang",
		"bytes": head + fmt.Sprintf("%x\r\n%s\r\n", len(chunk), chunk)}) // no last chunk
	hc, dials := dialCounting()
	c := newClient(t, func(o *Options) { o.HTTPClient = hc; o.ReadTimeout = 20 * time.Second })
	start := time.Now()
	if got := streamText(t, c, "x"); got != "hi" {
		t.Fatalf("text %q, want hi", got)
	}
	took := time.Since(start)
	t.Logf("the stream and its drain took %v", took.Round(time.Millisecond))
	// drainWait is 10 ms; the slack is for a loaded CI machine, far below the read timeout.
	if took > 2*time.Second {
		t.Errorf("the stream took %v: the drain after [DONE] waited on a body that never ends", took)
	}
	// The connection cut short is not pooled: the next call makes its own, and works.
	if got := streamText(t, c, "after"); got != "Echo: after" {
		t.Fatalf("next stream: %q", got)
	}
	if n := dials.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (the held one is not reused)", n)
	}
}
