package gw

// The suite runs against the real gw-mock binary over loopback, through the real linked
// library. TestMain starts it (GW_MOCK_BIN, default ../../target/release/gw-mock from
// `make build`) and stops it at the end; it also exports GW_BASE_URL and GW_API_KEY so
// the Examples can use gw.NewClient(gw.Options{}) as the README does.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

const testKey = "sk-test" // the key gw-mock accepts by default

var mockURL string

// control talks to /__mock/*; no keep-alive, so it leaves no goroutines for the leak checks.
var control = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func TestMain(m *testing.M) {
	os.Exit(runWithMock(m))
}

// testTransportEnv picks the transport the whole suite runs through: "builtin", or
// net/http (the default) when unset. scripts/test-go.sh runs the suite both ways.
const testTransportEnv = "GW_GO_TEST_TRANSPORT"

func runWithMock(m *testing.M) int {
	switch tr := os.Getenv(testTransportEnv); tr {
	case "builtin":
		builtinByDefault = true
	case "", "nethttp":
	default:
		fmt.Fprintf(os.Stderr, "gw tests: %s=%q: want builtin or nethttp\n", testTransportEnv, tr)
		return 2
	}
	if os.Getenv(helperEnv) != "" { // a child of runHelper: the parent's mock serves it
		mockURL = os.Getenv("GW_BASE_URL")
		return m.Run()
	}
	url, stop, err := startMock()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gw tests:", err)
		return 1
	}
	defer stop()
	mockURL = url
	os.Setenv("GW_BASE_URL", mockURL)
	os.Setenv("GW_API_KEY", testKey)
	return m.Run()
}

// startMock starts a gw-mock process with args besides its port and returns its address
// and how to stop it.
func startMock(args ...string) (url string, stop func(), err error) {
	bin := os.Getenv("GW_MOCK_BIN")
	if bin == "" {
		bin = filepath.Join("..", "..", "target", "release", "gw-mock")
	}
	if _, err := os.Stat(bin); err != nil {
		return "", nil, fmt.Errorf("gw-mock not found at %s (run `make build`, or set GW_MOCK_BIN): %w", bin, err)
	}
	cmd := exec.Command(bin, append([]string{"--port", "0", "--exit-on-stdin-eof"}, args...)...)
	stdin, err := cmd.StdinPipe() // closing it (or our death) stops the mock
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting gw-mock: %w", err)
	}
	stop = func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("gw-mock printed no address: %w", err)
	}
	go io.Copy(io.Discard, stdout)
	return strings.TrimSpace(line), stop, nil
}

// newClient makes a client on the mock and closes it when the test ends.
func newClient(t testing.TB, opts ...func(*Options)) *Client {
	t.Helper()
	o := Options{BaseURL: mockURL, APIKey: testKey, RetryBaseDelay: time.Millisecond, RetryMaxDelay: 5 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	c, err := NewClient(o)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// mockPost sends a control request (/__mock/...) and fails the test on a non-200.
func mockPost(t testing.TB, path string, body any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := control.Post(mockURL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, msg)
	}
}

// fault queues mock faults (an object or a list of them).
func fault(t testing.TB, f any) {
	t.Helper()
	mockPost(t, "/__mock/faults", f)
}

// resetMock forgets recordings, faults and tasks (each test that asserts on them starts here).
func resetMock(t testing.TB) {
	t.Helper()
	mockPost(t, "/__mock/reset", map[string]any{})
}

// recorded is one request as gw-mock received it.
type recorded struct {
	Method    string          `json:"method"`
	Path      string          `json:"path"`
	Query     *string         `json:"query"`
	Headers   [][2]string     `json:"headers"`
	Body      string          `json:"body"`
	JSON      json.RawMessage `json:"json"`
	Multipart []struct {
		Name        string  `json:"name"`
		Filename    *string `json:"filename"`
		ContentType *string `json:"content_type"`
		Size        int     `json:"size"`
		BytesB64    string  `json:"bytes_b64"`
	} `json:"multipart"`
}

func (r recorded) header(name string) string {
	for _, h := range r.Headers {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

// requests lists what gw-mock received since the last reset.
func requests(t testing.TB) []recorded {
	t.Helper()
	resp, err := control.Get(mockURL + "/__mock/requests")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []recorded
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// lastRequest is the most recent recorded request.
func lastRequest(t testing.TB) recorded {
	t.Helper()
	all := requests(t)
	if len(all) == 0 {
		t.Fatal("gw-mock recorded no request")
	}
	return all[len(all)-1]
}

// asError asserts err is a *Error and returns it.
func asError(t testing.TB, err error) *Error {
	t.Helper()
	if err == nil {
		t.Fatal("expected an error, got nil")
	}
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error is %T (%v), want *gw.Error", err, err)
	}
	return e
}

// settled waits until the live handle count and goroutine count are back to the given
// baseline (finalizers and AfterFunc goroutines take a moment), failing after 5 s.
func settled(t testing.TB, handles int64, goroutines int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		h, g := liveHandles.Load(), runtime.NumGoroutine()
		if h <= handles && g <= goroutines {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Fatalf("leak: %d live gw handles (want %d), %d goroutines (want %d)\n%s", h, handles, g, goroutines, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func chatReq(text string) ChatRequest {
	return ChatRequest{Model: "test-model", Messages: []Message{UserMessage(text)}}
}

func bg() context.Context { return context.Background() }
