package gw

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingObserver keeps every start and end it is told of.
type recordingObserver struct {
	mu     sync.Mutex
	starts []Attempt
	ends   []Attempt
	ctxOK  bool
	panic  bool
}

type ctxKey struct{}

func (o *recordingObserver) AttemptStart(ctx context.Context, a *Attempt) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ctxOK = ctx.Value(ctxKey{}) == "trace-1"
	a.State = time.Now()
	o.starts = append(o.starts, *a)
	if o.panic {
		panic("observer bug")
	}
}

func (o *recordingObserver) AttemptEnd(_ context.Context, a *Attempt) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := a.State.(time.Time); !ok {
		a.Operation = "State lost"
	}
	o.ends = append(o.ends, *a)
}

func TestObserverSeesEveryAttempt(t *testing.T) {
	resetMock(t)
	obs := &recordingObserver{}
	c := newClient(t, func(o *Options) { o.Observer = obs })
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 503})
	ctx := context.WithValue(bg(), ctxKey{}, "trace-1")
	if _, err := c.Chat(ctx, chatReq("hello")); err != nil {
		t.Fatal(err)
	}
	if len(obs.starts) != 2 || len(obs.ends) != 2 {
		t.Fatalf("%d starts, %d ends; want 2 each (a 503 then a retry)", len(obs.starts), len(obs.ends))
	}
	if !obs.ctxOK {
		t.Error("the observer did not get the call's context")
	}
	for i, a := range obs.ends {
		if a.Operation != "chat" || a.Method != "POST" || a.Path != "/v1/chat/completions" || a.Number != i+1 {
			t.Errorf("end %d: %+v", i, a)
		}
		if a.RequestBytes < int64(len(`{"model":"test-model"}`)) || a.Duration <= 0 {
			t.Errorf("end %d: bytes %d, duration %v", i, a.RequestBytes, a.Duration)
		}
		if !strings.HasPrefix(a.RequestID, "req_") {
			t.Errorf("end %d: request id %q", i, a.RequestID)
		}
	}
	if obs.ends[0].Status != 503 || obs.ends[1].Status != 200 || obs.ends[1].ResponseBytes <= 0 {
		t.Errorf("ends: %+v", obs.ends)
	}
	if obs.starts[0].Status != 0 || obs.starts[0].ResponseBytes != -1 {
		t.Errorf("start: %+v", obs.starts[0])
	}

	// generateContent carries the key in the query: the path shown never does.
	obs.starts, obs.ends = nil, nil
	_, err := c.GenerateContent(bg(), "gem", GenerateContentRequest{
		Contents: []NativeContent{{Role: "user", Parts: []NativePart{{Text: "hi"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(obs.ends) != 1 || strings.Contains(obs.ends[0].Path, testKey) || !strings.Contains(obs.ends[0].Path, "gem") {
		t.Errorf("generateContent attempts: %+v", obs.ends)
	}

	// A stream reports its attempt up to the head; a call that gets no answer ends with
	// a negative status.
	obs.starts, obs.ends = nil, nil
	s, err := c.ChatStream(bg(), chatReq("x"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	fault(t, map[string]any{"match": "/v1/embeddings", "action": "delay", "ms": 1000})
	_, err = c.Embeddings(bg(), EmbeddingRequest{Model: "e", Input: "x"}, WithTimeout(100*time.Millisecond), WithMaxRetries(0))
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("embeddings: %v", err)
	}
	if len(obs.ends) != 2 || obs.ends[0].Operation != "chat stream" || obs.ends[0].Status != 200 ||
		obs.ends[1].Operation != "embeddings" || obs.ends[1].Status != StatusTimeout {
		t.Errorf("ends: %+v", obs.ends)
	}

	// A client without an observer is not observed (the default path).
	obs.starts = nil
	plain := newClient(t)
	if _, err := plain.Chat(bg(), chatReq("x")); err != nil || len(obs.starts) != 0 {
		t.Fatalf("%v, %d starts", err, len(obs.starts))
	}
}

// A panicking Observer never unwinds through gw: the call finishes, then re-raises it.
func TestObserverPanicIsReraised(t *testing.T) {
	resetMock(t)
	handles := liveHandles.Load()
	obs := &recordingObserver{panic: true}
	c := newClient(t, func(o *Options) { o.Observer = obs })
	func() {
		defer func() {
			if p := recover(); p != "observer bug" {
				t.Errorf("recovered %v, want the observer's panic", p)
			}
		}()
		c.Chat(bg(), chatReq("x"))
		t.Error("Chat returned normally")
	}()
	if n := len(requests(t)); n != 1 {
		t.Errorf("%d requests, want 1 (the call went on after the observer panicked)", n)
	}
	if n := liveHandles.Load(); n != handles+1 {
		t.Errorf("%d live handles, want %d (the client only): the call's handle leaked", n, handles+1)
	}
	obs.panic = false
	if _, err := c.Chat(bg(), chatReq("again")); err != nil {
		t.Fatal(err)
	}
}
