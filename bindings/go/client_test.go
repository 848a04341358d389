package gw

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNewClientFromEnvironment(t *testing.T) {
	// TestMain exported GW_BASE_URL and GW_API_KEY for the mock.
	c, err := NewClient(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if res, err := c.Chat(bg(), chatReq("env")); err != nil || res.Text() != "Echo: env" {
		t.Fatalf("%v %v", res, err)
	}
}

func TestNewClientBadOptions(t *testing.T) {
	cases := []struct {
		opts Options
		want string
	}{
		{Options{BaseURL: "ftp://x", APIKey: "k"}, "base_url"},
		{Options{BaseURL: "http://gateway.example", APIKey: "k"}, "http"},
		{Options{BaseURL: mockURL, APIKey: "k", Proxy: "gopher://p"}, "proxy"},
		{Options{BaseURL: mockURL, APIKey: "k", Headers: map[string]string{"Bad Header": "v"}}, "header"},
	}
	for _, tc := range cases {
		c, err := NewClient(tc.opts)
		e := asError(t, err)
		if c != nil || e.Status != StatusInvalidArgument || !errors.Is(err, ErrInvalidArgument) ||
			!strings.Contains(strings.ToLower(e.Message), tc.want) {
			t.Errorf("%v: %+v", tc.opts, e)
		}
	}
}

func TestOptionsNeverPrintKey(t *testing.T) {
	o := Options{BaseURL: mockURL, APIKey: "sk-very-secret"}
	for _, s := range []string{fmt.Sprint(o), fmt.Sprintf("%v %+v %#v %s", o, o, o, o), fmt.Sprintf("%v", &o)} {
		if strings.Contains(s, "sk-very-secret") || !strings.Contains(s, "[redacted]") {
			t.Fatalf("printed %q", s)
		}
	}
	c := newClient(t, func(o *Options) { o.APIKey = "sk-test" })
	if s := fmt.Sprintf("%v %+v", c, c); strings.Contains(s, "sk-test") {
		t.Fatalf("client printed %q", s)
	}
}

func TestVersion(t *testing.T) {
	if v := Version(); !strings.Contains(v, ".") {
		t.Fatalf("version %q", v)
	}
}

func TestCloseIdempotentAndCallsAfterClose(t *testing.T) {
	c, err := NewClient(Options{BaseURL: mockURL, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(bg(), chatReq("x"))
	if !errors.Is(err, ErrClosed) || !errors.Is(err, ErrCancelled) {
		t.Fatalf("call after Close: %v", err)
	}
	if _, err := c.ChatStream(bg(), chatReq("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("stream after Close: %v", err)
	}
}

// Close cancels what is in flight: blocked calls, a stream and a wait return promptly
// with ErrClosed, and nothing is left behind.
func TestCloseWhileCallsRun(t *testing.T) {
	resetMock(t)
	handles, goroutines := liveHandles.Load(), runtime.NumGoroutine()
	c, err := NewClient(Options{BaseURL: mockURL, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	fault(t, map[string]any{"match": "/v1/embeddings", "action": "delay", "ms": 5000, "times": 8})
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "drip", "interval_ms": 5000})
	const calls = 8
	errs := make(chan error, calls+2)
	var wg sync.WaitGroup
	for i := 0; i < calls; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Embeddings(bg(), EmbeddingRequest{Model: "e", Input: "x"})
			errs <- err
		}()
	}
	s, err := c.ChatStream(bg(), chatReq("slow"))
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, _, err := s.Next()
		errs <- err
	}()
	task, err := c.VideoCreate(bg(), VideoRequest{Model: "v", Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer wg.Done()
		_, err := c.VideoWait(bg(), VideoUnified, task.ID, WaitOptions{Interval: 5 * time.Second})
		errs <- err
	}()
	time.Sleep(300 * time.Millisecond) // all of them are blocked in gw by now
	start := time.Now()
	c.Close()
	wg.Wait()
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("calls took %v to return after Close", took)
	}
	close(errs)
	n := 0
	for err := range errs {
		n++
		if !errors.Is(err, ErrClosed) {
			t.Errorf("call ended with %v, want ErrClosed", err)
		}
	}
	if n != calls+2 {
		t.Fatalf("%d results", n)
	}
	s.Close()
	settled(t, handles, goroutines)
}

// Many goroutines share one client: every call gets its own answer and metadata, and
// handles and goroutines return to where they were.
func TestConcurrentUse(t *testing.T) {
	resetMock(t)
	handles, goroutines := liveHandles.Load(), runtime.NumGoroutine()
	c, err := NewClient(Options{BaseURL: mockURL, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 32, 12
	var wg sync.WaitGroup
	failures := make(chan string, workers*each)
	requestIDs := make(chan string, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				word := fmt.Sprintf("w%dc%d", w, i)
				ctx, cancel := context.WithTimeout(bg(), 30*time.Second)
				switch i % 3 {
				case 0:
					var meta ResponseMeta
					res, err := c.Chat(ctx, chatReq(word), WithResponseMeta(&meta), WithHeader("X-Word", word))
					if err != nil || res.Text() != "Echo: "+word || meta.Status != 200 || meta.Attempts != 1 {
						failures <- fmt.Sprintf("chat %s: %v %v %+v", word, res, err, meta)
					}
					requestIDs <- meta.RequestID
				case 1:
					s, err := c.ChatStream(ctx, chatReq(word+" more"))
					if err != nil {
						failures <- fmt.Sprintf("stream %s: %v", word, err)
						break
					}
					var text strings.Builder
					for d, err := range s.Text() {
						if err != nil {
							failures <- fmt.Sprintf("stream %s: %v", word, err)
						}
						text.WriteString(d)
					}
					if text.String() != "Echo: "+word+" more" {
						failures <- fmt.Sprintf("stream %s: %q", word, text.String())
					}
					s.Close()
				case 2:
					l, err := c.Embeddings(ctx, EmbeddingRequest{Model: "e", Input: []string{word, word}})
					if err != nil || len(l.Data) != 2 || len(l.Data[0].Embedding) == 0 {
						failures <- fmt.Sprintf("embeddings %s: %v", word, err)
					}
				}
				cancel()
			}
		}(w)
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	// Metadata is per call: every chat saw its own answer's request id.
	close(requestIDs)
	ids := map[string]bool{}
	for id := range requestIDs {
		if id == "" || ids[id] {
			t.Fatalf("request id %q empty or seen twice", id)
		}
		ids[id] = true
	}
	// Each chat carried its own header: the mock saw every word exactly once.
	seen := map[string]int{}
	for _, r := range requests(t) {
		if h := r.header("x-word"); h != "" {
			seen[h]++
		}
	}
	if len(seen) != workers*each/3 {
		t.Fatalf("%d distinct per-call headers, want %d", len(seen), workers*each/3)
	}
	for w, n := range seen {
		if n != 1 {
			t.Fatalf("header %s sent %d times", w, n)
		}
	}
	c.Close()
	settled(t, handles, goroutines)
}

// A Client dropped without Close is freed by its finalizer (a safety net only).
func TestClientFinalizer(t *testing.T) {
	handles := liveHandles.Load()
	func() {
		c, err := NewClient(Options{BaseURL: mockURL, APIKey: testKey})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Chat(bg(), chatReq("x")); err != nil {
			t.Fatal(err)
		}
	}()
	settled(t, handles, runtime.NumGoroutine()+1)
}
