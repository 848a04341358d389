package gw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingTransport is a user's middleware (what otelhttp is): it sees every request and
// passes it on.
type recordingTransport struct {
	mu    sync.Mutex
	paths []string
	auth  []string
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.paths = append(r.paths, req.Method+" "+req.URL.Path)
	r.auth = append(r.auth, req.Header.Get("Authorization"))
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recordingTransport) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.paths...)
}

// Options.HTTPClient carries every request of every kind of call; gw, not the client's
// CheckRedirect, follows a redirect.
func TestHTTPClientCarriesEveryRequest(t *testing.T) {
	resetMock(t)
	rt := &recordingTransport{}
	followed := false
	hc := &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error {
		followed = true
		return nil
	}}
	c := newClient(t, func(o *Options) { o.HTTPClient = hc })
	if _, err := c.Chat(bg(), chatReq("plain")); err != nil {
		t.Fatal(err)
	}
	s, err := c.ChatStream(bg(), chatReq("streamed"))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range s.Events() {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ImageEditUpload(bg(), ImageEditRequest{Model: "edit-model", Prompt: "hat"},
		File{Name: "a.png", ContentType: "image/png", Data: []byte("png bytes")}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.VideoStatus(bg(), VideoVendorR, "r-task-1"); err != nil {
		t.Fatal(err)
	}
	fault(t, map[string]any{"match": "/v1/embeddings", "action": "redirect", "status": 307, "location": "/v1/embeddings"})
	if _, err := c.Embeddings(bg(), EmbeddingRequest{Model: "e", Input: "x"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"POST /v1/chat/completions", "POST /v1/chat/completions", "POST /v1/images/edits",
		"GET /vendorR/task/r-task-1", "POST /v1/embeddings", "POST /v1/embeddings"}
	if got := rt.seen(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the middleware saw %v, want %v", got, want)
	}
	if followed {
		t.Error("the HTTPClient's CheckRedirect ran: net/http followed a redirect gw should have")
	}
	for i, a := range rt.auth {
		if a != "Bearer "+testKey {
			t.Errorf("request %d: Authorization %q", i, a)
		}
	}
}

// What configures connections belongs to the HTTPClient's transport: set beside it, it
// is refused, naming the option; the built-in transport cannot take an HTTPClient.
func TestHTTPClientRefusesConnectionOptions(t *testing.T) {
	for name, set := range map[string]func(*Options){
		"Proxy":              func(o *Options) { o.Proxy = "http://127.0.0.1:3128" },
		"ConnectTimeout":     func(o *Options) { o.ConnectTimeout = time.Second },
		"MaxIdleConnections": func(o *Options) { o.MaxIdleConnections = 4 },
		"BuiltinTransport":   func(o *Options) { o.BuiltinTransport = true },
	} {
		o := Options{BaseURL: mockURL, APIKey: testKey, HTTPClient: &http.Client{}}
		set(&o)
		c, err := NewClient(o)
		if err == nil {
			c.Close()
			t.Errorf("%s with HTTPClient: accepted", name)
			continue
		}
		if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s with HTTPClient: %v, want ErrInvalidArgument naming it", name, err)
		}
	}
}

// failingTransport fails every request with an error that quotes the URL, as careless
// middleware does.
type failingTransport struct{}

func (failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("middleware refused %s", req.URL)
}

// The ?key= of generateContent never reaches an error, whatever quotes the URL.
func TestKeyNeverInTransportErrors(t *testing.T) {
	for name, o := range map[string]func(*Options){
		"refused connection": func(o *Options) { o.BaseURL = "http://127.0.0.1:1" },
		"middleware":         func(o *Options) { o.HTTPClient = &http.Client{Transport: failingTransport{}} },
	} {
		c := newClient(t, o, func(o *Options) { o.APIKey = "sk-query-secret"; o.MaxRetries = -1 })
		_, err := c.GenerateContent(bg(), "m", GenerateContentRequest{Contents: []NativeContent{{Role: "user", Parts: []NativePart{{Text: "x"}}}}})
		e := asError(t, err)
		if !errors.Is(err, ErrNetwork) {
			t.Errorf("%s: %v, want ErrNetwork", name, err)
		}
		if text := fmt.Sprintf("%v %+v %s", err, e, e.Body); strings.Contains(text, "sk-query-secret") {
			t.Errorf("%s: the key is in the error: %s", name, text)
		}
	}
}

// silentServer accepts connections and never answers (nor reads): a TLS handshake or an
// upload waits on it.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return l.Addr().String()
}

// A cancelled context ends the call within 50 ms in every phase it can wait in.
func TestCancelWithin50msInEveryPhase(t *testing.T) {
	silent := silentServer(t)
	// More than the socket buffers take, so the upload waits; a file is handed to gw as it
	// is (no JSON to encode first, which would be the phase instead).
	bigFile := File{Name: "big.png", ContentType: "image/png", Data: make([]byte, 24<<20)}
	type phase struct {
		name  string
		setup func(*Options)
		fault map[string]any
		call  func(ctx context.Context, c *Client) error
	}
	chat := func(text string) func(ctx context.Context, c *Client) error {
		return func(ctx context.Context, c *Client) error { _, err := c.Chat(ctx, chatReq(text)); return err }
	}
	phases := []phase{
		{name: "TLS handshake", setup: func(o *Options) { o.BaseURL = "https://" + silent }, call: chat("x")},
		{name: "upload", setup: func(o *Options) { o.BaseURL = "http://" + silent }, call: func(ctx context.Context, c *Client) error {
			_, err := c.ImageEditUpload(ctx, ImageEditRequest{Model: "edit-model", Prompt: "x"}, bigFile, nil)
			return err
		}},
		{name: "waiting for the head", fault: map[string]any{"action": "delay", "ms": 5000}, call: chat("x")},
		{name: "reading a plain body", fault: map[string]any{"action": "raw", "then": "hang",
			"bytes": "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"}, call: chat("x")},
		{name: "retry backoff", setup: func(o *Options) { o.MaxRetries = 2; o.RetryAfterCap = time.Minute },
			fault: map[string]any{"action": "status", "status": 429, "headers": map[string]string{"retry-after": "5"}}, call: chat("x")},
		{name: "stream", fault: map[string]any{"action": "drip", "interval_ms": 2000}, call: func(ctx context.Context, c *Client) error {
			s, err := c.ChatStream(ctx, chatReq("slow words here"))
			if err != nil {
				return err
			}
			defer s.Close()
			for _, err := range s.Events() {
				if err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, p := range phases {
		t.Run(p.name, func(t *testing.T) {
			resetMock(t)
			c := newClient(t, func(o *Options) { o.MaxRetries = -1 }, func(o *Options) {
				if p.setup != nil {
					p.setup(o)
				}
			})
			if p.fault != nil {
				p.fault["match"] = "/v1/chat/completions"
				fault(t, p.fault)
			}
			ctx, cancel := context.WithCancel(bg())
			defer cancel()
			cancelledAt := make(chan time.Time, 1)
			time.AfterFunc(200*time.Millisecond, func() { cancelledAt <- time.Now(); cancel() })
			err := p.call(ctx, c)
			took := time.Since(<-cancelledAt)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%v, want context.Canceled", err)
			}
			t.Logf("returned %v after the cancel", took.Round(time.Millisecond))
			if took > 50*time.Millisecond {
				t.Errorf("returned %v after the cancel, want within 50 ms", took)
			}
		})
	}
}

// A request body is read from the exchange's memory until its attempt ends, never after.
func TestRequestBodyDetaches(t *testing.T) {
	b := &viewBody{pieces: [][]byte{[]byte("ab"), []byte("cde")}}
	for i := 0; i < 2; i++ { // GetBody's second reader reads it all again
		got, err := io.ReadAll(b.reader())
		if err != nil || string(got) != "abcde" {
			t.Fatalf("reader %d: %q %v", i, got, err)
		}
	}
	r := b.reader()
	b.detach()
	if _, err := r.Read(make([]byte, 8)); !errors.Is(err, errBodyDetached) {
		t.Fatalf("read after detach: %v, want errBodyDetached", err)
	}
}

// bodyTypeTransport records the type of each request body net/http is handed.
type bodyTypeTransport struct {
	mu    sync.Mutex
	types []string
}

func (b *bodyTypeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	b.mu.Lock()
	b.types = append(b.types, fmt.Sprintf("%T", req.Body))
	b.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// A request body up to 64 KiB reaches net/http as an in-memory reader, which it writes
// with the head in one write; a larger one is read from the exchange's memory, whole.
func TestRequestBodiesAsSent(t *testing.T) {
	resetMock(t)
	bt := &bodyTypeTransport{}
	c := newClient(t, func(o *Options) { o.HTTPClient = &http.Client{Transport: bt} })
	small, err := c.Chat(bg(), chatReq("small"))
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("word ", 20<<10) + "end" // 100 KiB
	large, err := c.Chat(bg(), chatReq(big))
	if err != nil {
		t.Fatal(err)
	}
	if small.Text() != "Echo: small" || large.Text() != "Echo: "+big {
		t.Errorf("answers %q and %d bytes, want the prompts echoed", small.Text(), len(large.Text()))
	}
	// io.NopCloser over a *bytes.Reader is net/http's "known in-memory reader".
	want := []string{"io.nopCloserWriterTo", "*gw.viewBodyReader"}
	if fmt.Sprint(bt.types) != fmt.Sprint(want) {
		t.Errorf("bodies handed to net/http: %v, want %v", bt.types, want)
	}
}

// The last URL parsed is copied for the next request to it, never shared: a change to
// one request's URL (middleware may rewrite it) does not reach the next.
func TestRequestURLCopiedNotShared(t *testing.T) {
	st := &clientState{}
	a, hostA, err := st.requestURL("http://127.0.0.1:80/v1/chat/completions")
	if err != nil || hostA != "127.0.0.1:80" {
		t.Fatalf("first: %v %q %v", a, hostA, err)
	}
	a.Path = "/rewritten"
	b, _, err := st.requestURL("http://127.0.0.1:80/v1/chat/completions")
	if err != nil || b == a || b.Path != "/v1/chat/completions" {
		t.Fatalf("second: %v (same pointer: %v) %v", b, b == a, err)
	}
	c, hostC, err := st.requestURL("http://[::1]:/v1/embeddings?x=1")
	if err != nil || c.Path != "/v1/embeddings" || c.RawQuery != "x=1" || hostC != "[::1]" {
		t.Fatalf("another URL: %v host %q %v", c, hostC, err)
	}
	if _, _, err := st.requestURL("http://a b/"); err == nil {
		t.Fatal("a URL net/url refuses was taken")
	}
}

// A VideoWait with Options.HTTPClient sends every poll through that client (no request on
// gw's own transport), and its progress comes from the polls it carried.
func TestHTTPClientCarriesEveryVideoPoll(t *testing.T) {
	resetMock(t)
	rt := &recordingTransport{}
	c := newClient(t, func(o *Options) { o.HTTPClient = &http.Client{Transport: rt} })
	var statuses []string
	progress := make(chan *VideoTask, 8)
	final, err := c.VideoWait(bg(), VideoVendorR, "r-wait-http", WaitOptions{
		Interval:   10 * time.Millisecond,
		OnProgress: func(t *VideoTask) { statuses = append(statuses, t.Status) },
		Progress:   progress,
	})
	if err != nil || final.Status != "SUCCEEDED" {
		t.Fatalf("%+v %v", final, err)
	}
	if want := "[PENDING RUNNING SUCCEEDED]"; fmt.Sprint(statuses) != want {
		t.Errorf("OnProgress saw %v, want %s", statuses, want)
	}
	if len(progress) != 3 {
		t.Errorf("Progress got %d records, want 3", len(progress))
	}
	poll := "GET /vendorR/task/r-wait-http"
	if got, want := rt.seen(), []string{poll, poll, poll}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the middleware saw %v, want %v", got, want)
	}
	if n := len(requests(t)); n != 3 {
		t.Errorf("the mock saw %d requests, want 3: one went around the HTTPClient", n)
	}
	// A failed poll (500, no retries) ends the wait with its status, through the client too.
	fault(t, map[string]any{"match": "/vendorR/", "action": "status", "status": 500})
	_, err = c.VideoWait(bg(), VideoVendorR, "r-wait-500", WaitOptions{Interval: 10 * time.Millisecond},
		WithMaxRetries(0))
	if e := asError(t, err); e.Status != 500 {
		t.Fatalf("error %+v", e)
	}
	if got := rt.seen(); len(got) != 4 || got[3] != "GET /vendorR/task/r-wait-500" {
		t.Errorf("the middleware saw %v", got)
	}
}

// A cancelled context ends a VideoWait within 50 ms in a pause between polls and in a
// poll the gateway is slow to answer (through either transport).
func TestVideoWaitCancelWithin50ms(t *testing.T) {
	for _, phase := range []string{"pause", "poll"} {
		t.Run(phase, func(t *testing.T) {
			resetMock(t)
			c := newClient(t)
			if phase == "poll" {
				fault(t, map[string]any{"match": "/vendorR/", "action": "delay", "ms": 5000})
			}
			ctx, cancel := context.WithCancel(bg())
			defer cancel()
			cancelledAt := make(chan time.Time, 1)
			time.AfterFunc(200*time.Millisecond, func() { cancelledAt <- time.Now(); cancel() })
			_, err := c.VideoWait(ctx, VideoVendorR, "r-wait-cancel", WaitOptions{Interval: 10 * time.Second})
			took := time.Since(<-cancelledAt)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%v, want context.Canceled", err)
			}
			if took > 50*time.Millisecond {
				t.Errorf("returned %v after the cancel, want within 50 ms", took)
			}
		})
	}
}

// headerTransport records each request's headers, and then writes over the values it
// was handed (a RoundTripper must not; one that does must not reach the next request).
type headerTransport struct {
	mu   sync.Mutex
	seen []http.Header
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.seen = append(h.seen, req.Header.Clone())
	h.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(req)
	for _, values := range req.Header {
		values[0] = "scribbled"
	}
	return resp, err
}

// Header values repeated from the last request are shared, not copied again: each
// request still carries exactly its own values, whichever change from call to call.
func TestRequestHeadersAreEachCallsOwn(t *testing.T) {
	resetMock(t)
	ht := &headerTransport{}
	c := newClient(t, func(o *Options) { o.HTTPClient = &http.Client{Transport: ht} })
	type sent struct{ tag, idem string }
	calls := []sent{{"one", "idem-1"}, {"one", "idem-2"}, {"two", "idem-2"}, {"one", "idem-1"}, {"three", "i"}}
	for _, s := range calls {
		if _, err := c.Chat(bg(), chatReq("q"), WithHeader("X-Tag", s.tag), WithIdempotencyKey(s.idem)); err != nil {
			t.Fatal(err)
		}
	}
	if len(ht.seen) != len(calls) {
		t.Fatalf("%d requests, want %d", len(ht.seen), len(calls))
	}
	for i, s := range calls {
		h := ht.seen[i]
		if h.Get("Authorization") != "Bearer "+testKey || h.Get("X-Tag") != s.tag || h.Get("Idempotency-Key") != s.idem ||
			h.Get("Content-Type") != "application/json" {
			t.Errorf("request %d: headers %v, want tag %s, idempotency key %s", i, h, s.tag, s.idem)
		}
	}
}

// fabricatedTransport answers without a network, with headers net/http itself would
// refuse on the wire (a NUL in a value, a space in a name), as a RoundTripper outside
// net/http may: Content-Type and these extra headers.
type fabricatedTransport struct{ extra http.Header }

func (f fabricatedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body := `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`
	header := http.Header{"Content-Type": {"application/json"}}
	for name, values := range f.extra {
		header[name] = values
	}
	return &http.Response{StatusCode: 200, Header: header, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: req}, nil
}

// A header value that cannot be a C string is left out of what gw is fed; the rest of
// the head, and the call, go on.
func TestHeaderWithNULLeftOut(t *testing.T) {
	nul := fabricatedTransport{http.Header{"X-Nul": {"a\x00b"}, "X-Fine": {"yes"}}}
	c := newClient(t, func(o *Options) { o.HTTPClient = &http.Client{Transport: nul} })
	var meta ResponseMeta
	res, err := c.Chat(bg(), chatReq("q"), WithResponseMeta(&meta))
	if err != nil || res.Text() != "hi" {
		t.Fatalf("chat: %v, %v", res, err)
	}
	if _, ok := meta.Header["X-Nul"]; ok || meta.Header.Get("X-Fine") != "yes" {
		t.Errorf("headers %v: want X-Fine and no X-Nul", meta.Header)
	}
}

// A head gw refuses (a header name that is no HTTP token) fails the call as the network
// failure it is, and says why.
func TestHeadGwRefusesIsANetworkFailure(t *testing.T) {
	bad := fabricatedTransport{http.Header{"Bad Name": {"x"}}}
	c := newClient(t, func(o *Options) { o.HTTPClient = &http.Client{Transport: bad} })
	_, err := c.Chat(bg(), chatReq("q"))
	if e := asError(t, err); e.Status != StatusNetwork || !strings.Contains(e.Message, "not valid HTTP for gw") {
		t.Fatalf("status %d, message %q: want a network failure naming the head", e.Status, e.Message)
	}
}

// Finishing an exchange already released says so, as gw_exchange_finish(NULL) does,
// and leaves the count of live C objects as it was.
func TestFinishingAReleasedExchange(t *testing.T) {
	before := liveHandles.Load()
	if status, out := exchangeFinishFree(nil); status != StatusInvalidArgument || out != nil {
		t.Fatalf("status %d, out %q", status, out)
	}
	if after := liveHandles.Load(); after != before {
		t.Fatalf("live handles %d → %d", before, after)
	}
}
