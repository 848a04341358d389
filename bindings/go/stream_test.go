package gw

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestChatStreamEventsAndResult(t *testing.T) {
	c := newClient(t)
	s, err := c.ChatStream(bg(), chatReq("one two three four"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var text strings.Builder
	n := 0
	for ev, err := range s.Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Index != n || ev.Name != "message" || ev.ChoiceIndex != 0 {
			t.Fatalf("event %d: %+v", n, ev)
		}
		chunk, err := ev.Chunk()
		if err != nil {
			t.Fatal(err)
		}
		if chunk.Object != "chat.completion.chunk" || chunk.Choices[0].Delta.Content != ev.TextDelta {
			t.Fatalf("chunk %+v vs delta %q", chunk, ev.TextDelta)
		}
		text.WriteString(ev.TextDelta)
		n++
	}
	if text.String() != "Echo: one two three four" {
		t.Fatalf("deltas %q", text.String())
	}
	if n < 6 { // role chunk, 5 words, final chunk
		t.Fatalf("%d events", n)
	}
	final, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if final.Text() != "Echo: one two three four" || final.Choices[0].FinishReason != "stop" || final.Object != "chat.completion" {
		t.Fatalf("final %+v", final)
	}
	again, err := s.Result() // cached, same answer
	if err != nil || again != final {
		t.Fatalf("second Result %v %v", again, err)
	}
	if m := s.Meta(); m == nil || m.Status != 200 || m.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("meta %+v", m)
	}
}

func TestStreamTextResultWithoutIterating(t *testing.T) {
	c := newClient(t)
	s, err := c.ChatStream(bg(), chatReq("alpha beta"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for delta, err := range s.Text() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, delta)
	}
	if strings.Join(got, "") != "Echo: alpha beta" || len(got) != 3 {
		t.Fatalf("deltas %q", got)
	}
	s.Close()

	// Result alone reads the whole stream.
	s, err = c.ChatStream(bg(), chatReq("gamma"))
	if err != nil {
		t.Fatal(err)
	}
	final, err := s.Result()
	if err != nil || final.Text() != "Echo: gamma" {
		t.Fatalf("Result %v %v", final, err)
	}
	for ev, err := range s.Events() { // nothing left
		t.Fatalf("event after the end: %+v %v", ev, err)
	}
	s.Close()
}

func TestChatStreamRaw(t *testing.T) {
	c := newClient(t)
	s, err := c.ChatStreamRaw(bg(), []byte(`{"model":"m","messages":[{"role":"user","content":"raw stream"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	final, err := s.Result()
	if err != nil || !strings.Contains(string(final), `"Echo: raw stream"`) {
		t.Fatalf("final %s %v", final, err)
	}
}

func TestResponsesStream(t *testing.T) {
	c := newClient(t)
	s, err := c.ResponsesStream(bg(), ResponsesRequest{Model: "m", Input: TextInput("stream me")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var text strings.Builder
	names := map[string]int{}
	for ev, err := range s.Events() {
		if err != nil {
			t.Fatal(err)
		}
		names[ev.Name]++
		text.WriteString(ev.TextDelta)
	}
	if names["response.output_text.delta"] == 0 || names["response.completed"] != 1 {
		t.Fatalf("event names %v", names)
	}
	final, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "completed" || final.OutputText() != text.String() || text.Len() == 0 {
		t.Fatalf("final %q vs deltas %q (%+v)", final.OutputText(), text.String(), final)
	}
	raw, err := c.ResponsesStreamRaw(bg(), []byte(`{"model":"m","input":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if out, err := raw.Result(); err != nil || !strings.Contains(string(out), `"completed"`) {
		t.Fatalf("raw result %s %v", out, err)
	}
}

// Breaking out of the loop frees the stream at once; Result then says it was closed.
func TestStreamEarlyBreakFrees(t *testing.T) {
	c := newClient(t)
	base := liveHandles.Load()
	s, err := c.ChatStream(bg(), chatReq("a b c d e f g h"))
	if err != nil {
		t.Fatal(err)
	}
	if liveHandles.Load() != base+2 { // the call's handle and the stream
		t.Fatalf("live handles %d, want %d", liveHandles.Load(), base+2)
	}
	for range s.Events() {
		break
	}
	if liveHandles.Load() != base {
		t.Fatalf("after break: %d live handles, want %d", liveHandles.Load(), base)
	}
	_, err = s.Result()
	if !errors.Is(err, ErrStreamClosed) {
		t.Fatalf("Result after break: %v", err)
	}
	s.Close() // idempotent
}

// Cancelling the context mid-stream ends a read blocked in gw quickly, as context.Canceled.
func TestStreamCancelMidStream(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "drip", "interval_ms": 2000})
	ctx, cancel := context.WithCancel(bg())
	defer cancel()
	s, err := c.ChatStream(ctx, chatReq("slow words here"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	var got error
	for _, err := range s.Events() {
		if err != nil {
			got = err
		}
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("cancel took %v", took)
	}
	if !errors.Is(got, context.Canceled) || !errors.Is(got, ErrCancelled) {
		t.Fatalf("error %v", got)
	}
	if _, err := s.Result(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Result %v", err)
	}
}

// A context deadline bounds the whole stream.
func TestStreamDeadline(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "drip", "interval_ms": 150})
	ctx, cancel := context.WithTimeout(bg(), 400*time.Millisecond)
	defer cancel()
	s, err := c.ChatStream(ctx, chatReq("w1 w2 w3 w4 w5 w6 w7 w8 w9"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	events := 0
	var got error
	for _, err := range s.Events() {
		if err != nil {
			got = err
			break
		}
		events++
	}
	if events == 0 || events > 4 {
		t.Fatalf("%d events before the deadline", events)
	}
	if !errors.Is(got, context.DeadlineExceeded) || !errors.Is(got, ErrTimeout) {
		t.Fatalf("error %v", got)
	}
}

// Close from another goroutine wakes a reader blocked in gw.
func TestStreamCloseFromAnotherGoroutine(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "drip", "interval_ms": 3000})
	s, err := c.ChatStream(bg(), chatReq("x y"))
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(100*time.Millisecond, func() { s.Close() })
	start := time.Now()
	_, more, err := s.Next()
	if more || !errors.Is(err, ErrStreamClosed) || time.Since(start) > time.Second {
		t.Fatalf("Next after Close: more=%v err=%v after %v", more, err, time.Since(start))
	}
}

func TestStreamFailures(t *testing.T) {
	cases := []struct {
		name   string
		fault  map[string]any
		status int
		is     error
	}{
		{"error event", map[string]any{"action": "stream_error", "after_events": 2}, StatusStream, ErrStream},
		{"truncated", map[string]any{"action": "truncate", "after_events": 2}, StatusStream, ErrStream},
		{"huge line", map[string]any{"action": "huge_line", "after_events": 1, "bytes": 300000}, StatusTooLarge, ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resetMock(t)
			c := newClient(t, func(o *Options) { o.MaxLineBytes = 100000; o.MaxRetries = -1 })
			tc.fault["match"] = "/v1/chat/completions"
			fault(t, tc.fault)
			s, err := c.ChatStream(bg(), chatReq("a b c d e f"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			events := 0
			var got error
			for _, err := range s.Events() {
				if err != nil {
					got = err
				} else {
					events++
				}
			}
			e := asError(t, got)
			if e.Status != tc.status || !errors.Is(got, tc.is) || events == 0 {
				t.Fatalf("after %d events: %+v", events, e)
			}
			if _, err := s.Result(); err != got {
				t.Fatalf("Result gives %v, want the same error", err)
			}
		})
	}
}

// A stream refused before it starts is an error from ChatStream itself, with metadata.
func TestStreamOpenFailure(t *testing.T) {
	resetMock(t)
	c := newClient(t, func(o *Options) { o.MaxRetries = -1 })
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 503})
	base := liveHandles.Load()
	s, err := c.ChatStream(bg(), chatReq("x"))
	e := asError(t, err)
	if s != nil || e.Status != 503 || !errors.Is(err, ErrServer) || e.Meta == nil || e.Meta.Status != 503 || e.Meta.RequestID == "" {
		t.Fatalf("stream %v, error %+v", s, e)
	}
	if liveHandles.Load() != base {
		t.Fatal("a failed open left a handle")
	}
}

// A stream dropped without Close is freed by its finalizer (the safety net).
func TestStreamFinalizer(t *testing.T) {
	c := newClient(t)
	base := liveHandles.Load()
	func() {
		s, err := c.ChatStream(bg(), chatReq("left open"))
		if err != nil {
			t.Fatal(err)
		}
		_, _, _ = s.Next()
	}()
	deadline := time.Now().Add(5 * time.Second)
	for liveHandles.Load() != base {
		if time.Now().After(deadline) {
			t.Fatalf("finalizer did not free the stream: %d live handles, want %d", liveHandles.Load(), base)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// The read timeout runs from the last read, not from the first: a stream whose events
// come 120 ms apart outlives a 300 ms read timeout many times over, and one whose next
// event is 900 ms away is cut at the timeout.
func TestStreamReadTimeoutFromLastRead(t *testing.T) {
	resetMock(t)
	c := newClient(t, func(o *Options) { o.ReadTimeout = 300 * time.Millisecond; o.MaxRetries = -1 })
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "drip", "interval_ms": 120, "times": 1})
	s, err := c.ChatStream(bg(), chatReq("w1 w2 w3 w4 w5 w6 w7 w8 w9 w10"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	text := ""
	for delta, err := range s.Text() {
		if err != nil {
			t.Fatalf("after %v and %q: %v", time.Since(start), text, err)
		}
		text += delta
	}
	s.Close()
	if text != "Echo: w1 w2 w3 w4 w5 w6 w7 w8 w9 w10" || time.Since(start) < 900*time.Millisecond {
		t.Fatalf("%q in %v: want the whole echo, dripped over more than 900 ms", text, time.Since(start))
	}

	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "drip", "interval_ms": 900, "times": 1})
	s, err = c.ChatStream(bg(), chatReq("x y z"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got error
	last := time.Now() // the head came; the mock drips before each event
	for _, err := range s.Events() {
		if err != nil {
			got = err
			break
		}
		last = time.Now()
	}
	if !errors.Is(got, ErrTimeout) {
		t.Fatalf("a 900 ms gap under a 300 ms read timeout: %v, want ErrTimeout", got)
	}
	if gap := time.Since(last); gap < 250*time.Millisecond || gap > 800*time.Millisecond {
		t.Fatalf("cut %v after the last read, want about 300 ms", gap)
	}
}
