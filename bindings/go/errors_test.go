package gw

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

func TestAuthErrorNeverShowsKey(t *testing.T) {
	const secret = "sk-wrong-secret-123"
	c := newClient(t, func(o *Options) { o.APIKey = secret })
	_, err := c.Chat(bg(), chatReq("x"))
	e := asError(t, err)
	if e.Status != 401 || e.Type != "authentication_error" || e.Code != "invalid_api_key" || !errors.Is(err, ErrAuth) {
		t.Fatalf("error %+v", e)
	}
	var as *Error
	if !errors.As(fmt.Errorf("wrapped: %w", err), &as) || as != e {
		t.Fatal("errors.As through a wrap")
	}
	all := fmt.Sprintf("%v %+v %#v %s %s", err, e, e, e.Body, e.Meta.URL)
	if strings.Contains(all, secret) {
		t.Fatalf("key in error text: %s", all)
	}
	if !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "invalid_api_key") {
		t.Fatalf("message %q", err)
	}
	// generateContent puts the key in ?key=: still never shown.
	_, err = c.GenerateContent(bg(), "m", GenerateContentRequest{Contents: []NativeContent{{Role: "user", Parts: []NativePart{{Text: "x"}}}}})
	e = asError(t, err)
	if e.Status != 401 || strings.Contains(fmt.Sprintf("%v %+v %s", err, e.Meta, e.Body), secret) {
		t.Fatalf("error %+v meta %+v", e, e.Meta)
	}
}

// Rate limits: the retries are gw's; the final 429 carries its headers, request id and attempts.
func TestRateLimitMetadata(t *testing.T) {
	resetMock(t)
	c := newClient(t, func(o *Options) { o.MaxRetries = 2 })
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 429, "times": 3,
		"headers": map[string]string{
			"retry-after-ms":             "1",
			"x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s",
		}})
	var meta ResponseMeta
	_, err := c.Chat(bg(), chatReq("x"), WithResponseMeta(&meta))
	e := asError(t, err)
	if !errors.Is(err, ErrRateLimited) || e.Status != 429 || !e.Temporary() || e.Type != "rate_limit_error" {
		t.Fatalf("error %+v", e)
	}
	m := e.Meta
	// gw-mock names every answer x-request-id: req_mock_<n>.
	if m == nil || m.Status != 429 || !strings.HasPrefix(m.RequestID, "req_mock_") || m.RequestID != m.Header.Get("X-Request-Id") ||
		m.Attempts != 3 || !strings.HasSuffix(m.URL, "/v1/chat/completions") {
		t.Fatalf("meta %+v", m)
	}
	rl := m.RateLimit()
	if rl.LimitRequests != 100 || rl.RemainingRequests != 0 || rl.ResetRequests != "1s" || rl.LimitTokens != -1 {
		t.Fatalf("rate limit %+v", rl)
	}
	if d, ok := m.RetryAfter(); !ok || d != time.Millisecond {
		t.Fatalf("retry after %v %v", d, ok)
	}
	if meta.RequestID != m.RequestID || meta.Attempts != 3 {
		t.Fatalf("WithResponseMeta on failure: %+v", meta)
	}
	if n := len(requests(t)); n != 3 {
		t.Fatalf("%d attempts reached the mock", n)
	}
}

func TestSuccessMetadataAndPerCallOptions(t *testing.T) {
	resetMock(t)
	c := newClient(t, func(o *Options) { o.Headers = map[string]string{"X-Base": "b", "X-Over": "base"} })
	// One 500 then success: attempts 2, and the success's own headers.
	fault(t, []map[string]any{
		{"match": "/v1/embeddings", "action": "status", "status": 500},
	})
	var meta ResponseMeta
	_, err := c.Embeddings(bg(), EmbeddingRequest{Model: "e", Input: "hi"},
		WithResponseMeta(&meta), WithHeader("X-Over", "call"), WithHeader("X-Call", "1"),
		WithIdempotencyKey("idem-7"), WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if meta.Status != 200 || meta.Attempts != 2 || meta.Elapsed <= 0 || meta.Header.Get("Content-Type") == "" || meta.RequestID == "" {
		t.Fatalf("meta %+v", meta)
	}
	all := requests(t)
	if len(all) != 2 {
		t.Fatalf("%d requests", len(all))
	}
	for _, r := range all {
		if r.header("x-base") != "b" || r.header("x-over") != "call" || r.header("x-call") != "1" || r.header("idempotency-key") != "idem-7" {
			t.Fatalf("headers %v", r.Headers)
		}
	}
	// The next call on the same client has none of the per-call settings.
	if _, err := c.Embeddings(bg(), EmbeddingRequest{Model: "e", Input: "hi"}); err != nil {
		t.Fatal(err)
	}
	last := lastRequest(t)
	if last.header("x-over") != "base" || last.header("x-call") != "" || last.header("idempotency-key") == "idem-7" {
		t.Fatalf("per-call options leaked into the next call: %v", last.Headers)
	}
}

// gw sends its own Idempotency-Key on every POST, the same on each retry of one call;
// Options.DisableIdempotencyKeys turns that off.
func TestIdempotencyKeys(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 502})
	if _, err := c.Chat(bg(), chatReq("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(bg(), chatReq("y")); err != nil {
		t.Fatal(err)
	}
	all := requests(t)
	if len(all) != 3 {
		t.Fatalf("%d requests", len(all))
	}
	k1, k2, k3 := all[0].header("idempotency-key"), all[1].header("idempotency-key"), all[2].header("idempotency-key")
	if k1 == "" || k1 != k2 || k3 == "" || k3 == k1 {
		t.Fatalf("keys %q %q %q: want one per call, the same on its retry", k1, k2, k3)
	}
	resetMock(t)
	off := newClient(t, func(o *Options) { o.DisableIdempotencyKeys = true })
	if _, err := off.Chat(bg(), chatReq("x")); err != nil {
		t.Fatal(err)
	}
	if k := lastRequest(t).header("idempotency-key"); k != "" {
		t.Fatalf("key %q sent with DisableIdempotencyKeys", k)
	}
}

func TestFirstByteTimeout(t *testing.T) {
	resetMock(t)
	c := newClient(t, func(o *Options) { o.MaxRetries = -1 })
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "delay", "ms": 3000})
	start := time.Now()
	_, err := c.Chat(bg(), chatReq("x"), WithFirstByteTimeout(200*time.Millisecond))
	if e := asError(t, err); e.Status != StatusTimeout || time.Since(start) > 2*time.Second {
		t.Fatalf("error %+v after %v", e, time.Since(start))
	}
}

func TestWithMaxRetries(t *testing.T) {
	resetMock(t)
	c := newClient(t, func(o *Options) { o.MaxRetries = 3 })
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 503, "times": 5})
	_, err := c.Chat(bg(), chatReq("x"), WithMaxRetries(0))
	e := asError(t, err)
	if e.Status != 503 || e.Meta.Attempts != 1 || len(requests(t)) != 1 {
		t.Fatalf("error %+v meta %+v", e, e.Meta)
	}
	resetMock(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 503, "times": 1})
	if _, err := c.Chat(bg(), chatReq("x"), WithMaxRetries(1)); err != nil {
		t.Fatal(err)
	}
	if n := len(requests(t)); n != 2 {
		t.Fatalf("%d attempts", n)
	}
}

func TestTimeoutOption(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "delay", "ms": 3000})
	start := time.Now()
	_, err := c.Chat(bg(), chatReq("x"), WithTimeout(200*time.Millisecond))
	e := asError(t, err)
	if e.Status != StatusTimeout || !errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %+v", e)
	}
	if took := time.Since(start); took < 150*time.Millisecond || took > 2*time.Second {
		t.Fatalf("took %v", took)
	}
}

func TestContextDeadline(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	fault(t, map[string]any{"match": "/v1/embeddings", "action": "delay", "ms": 3000})
	ctx, cancel := context.WithTimeout(bg(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Embeddings(ctx, EmbeddingRequest{Model: "e", Input: "x"})
	e := asError(t, err)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrTimeout) || e.Status != StatusTimeout {
		t.Fatalf("error %+v", e)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v", took)
	}
}

func TestContextCancelMidCall(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	fault(t, map[string]any{"match": "/v1/images/generations", "action": "delay", "ms": 3000})
	ctx, cancel := context.WithCancel(bg())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.ImageGenerate(ctx, ImageRequest{Model: "i", Prompt: "p"})
	e := asError(t, err)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrCancelled) || e.Status != StatusCancelled {
		t.Fatalf("error %+v", e)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("cancel took %v", took)
	}
	// The client goes on working after a cancelled call.
	if _, err := c.Chat(bg(), chatReq("after")); err != nil {
		t.Fatal(err)
	}
}

func TestCancelledBeforeAndNilContext(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	ctx, cancel := context.WithCancel(bg())
	cancel()
	_, err := c.Chat(ctx, chatReq("x"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
	_, err = c.Chat(nil, chatReq("x"))
	if e := asError(t, err); e.Status != StatusInvalidArgument || !strings.Contains(e.Message, "ctx") {
		t.Fatalf("error %+v", e)
	}
	if n := len(requests(t)); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

func TestHTTPStatusErrors(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	_, err := c.Do(bg(), "GET", "/v1/no-such-endpoint", nil)
	if e := asError(t, err); e.Status != 404 || !errors.Is(err, ErrNotFound) || !strings.Contains(e.Message, "/v1/no-such-endpoint") {
		t.Fatalf("error %+v", e)
	}
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 500, "times": 3})
	_, err = c.Chat(bg(), chatReq("x"))
	if e := asError(t, err); e.Status != 500 || !errors.Is(err, ErrServer) || e.StatusName() != "GW_SERVER_ERROR" {
		t.Fatalf("error %+v", e)
	}
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "garbage"})
	_, err = c.Chat(bg(), chatReq("x"))
	if e := asError(t, err); e.Status != StatusDecode || !errors.Is(err, ErrDecode) {
		t.Fatalf("error %+v", e)
	}
}

func TestNetworkError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	c := newClient(t, func(o *Options) { o.BaseURL = "http://" + addr; o.MaxRetries = -1 })
	_, err = c.Chat(bg(), chatReq("x"))
	e := asError(t, err)
	if e.Status != StatusNetwork || !errors.Is(err, ErrNetwork) || !e.Temporary() {
		t.Fatalf("error %+v", e)
	}
}
