package gw

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// WithAPIKey sends the call's key instead of the client's; the client's key, refused by
// the gateway, stays on its own calls.
func TestWithAPIKey(t *testing.T) {
	resetMock(t)
	c := newClient(t, func(o *Options) { o.APIKey = "sk-other-tenant"; o.MaxRetries = -1 })
	if _, err := c.Chat(bg(), chatReq("client key")); !errors.Is(err, ErrAuth) {
		t.Fatalf("the client's key: %v, want ErrAuth", err)
	}
	res, err := c.Chat(bg(), chatReq("call key"), WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != "Echo: call key" {
		t.Errorf("answer %q", res.Text())
	}
	reqs := requests(t)
	if got := reqs[0].header("authorization"); got != "Bearer sk-other-tenant" {
		t.Errorf("client call sent %q", got)
	}
	if got := reqs[1].header("authorization"); got != "Bearer "+testKey {
		t.Errorf("per-call key: sent %q", got)
	}
	// A bad per-call key is refused before sending, without being printed.
	_, err = c.Chat(bg(), chatReq("x"), WithAPIKey("sk-secret\n"))
	e := asError(t, err)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(e.Error(), "api_key") {
		t.Fatalf("bad key: %v", err)
	}
	if strings.Contains(fmt.Sprintf("%v %+v %#v", err, e, e), "sk-secret") {
		t.Fatalf("the key is printed: %+v", e)
	}
	if _, err := c.Chat(bg(), chatReq("x"), WithAPIKey("")); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("empty per-call key: %v, want ErrInvalidArgument", err)
	}
	if n := len(requests(t)); n != 2 {
		t.Errorf("%d requests reached the gateway, want 2", n)
	}
}

// WithBaseURL sends the call elsewhere, checked like Options.BaseURL.
func TestWithBaseURL(t *testing.T) {
	resetMock(t)
	// The client's own address has nothing listening.
	c := newClient(t, func(o *Options) { o.BaseURL = "http://127.0.0.1:1"; o.MaxRetries = -1 })
	if _, err := c.Chat(bg(), chatReq("x")); !errors.Is(err, ErrNetwork) {
		t.Fatalf("the client's address: %v, want ErrNetwork", err)
	}
	res, err := c.Chat(bg(), chatReq("routed"), WithBaseURL(mockURL+"/v1/"), WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != "Echo: routed" {
		t.Errorf("answer %q", res.Text())
	}
	var meta ResponseMeta
	s, err := c.ChatStream(bg(), chatReq("streamed"), WithBaseURL(mockURL), WithResponseMeta(&meta))
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for d, err := range s.Text() {
		if err != nil {
			t.Fatal(err)
		}
		text += d
	}
	if !strings.Contains(text, "streamed") {
		t.Errorf("stream text %q", text)
	}
	for _, bad := range []struct{ url, says string }{
		{"http://gateway.example.com", "allow_insecure_http"},
		{"ftp://gateway.example.com", "scheme"},
		{"", "base_url"},
	} {
		_, err := c.Chat(bg(), chatReq("x"), WithBaseURL(bad.url))
		if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("WithBaseURL(%q): %v, want ErrInvalidArgument naming %s", bad.url, err, bad.says)
		}
	}
	if n := len(requests(t)); n != 2 {
		t.Errorf("%d requests reached the mock, want 2", n)
	}
}
