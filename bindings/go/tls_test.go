package gw

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startTLSMock starts a gw-mock that speaks HTTPS with a certificate from a CA made for this
// test, and returns its address and the CA's PEM file.
func startTLSMock(t *testing.T) (url, caFile string) {
	t.Helper()
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	url, stop, err := startMock("--tls-ca-out", caFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("the TLS mock's address is %q", url)
	}
	return url, caFile
}

func TestTrustedCA(t *testing.T) {
	url, caFile := startTLSMock(t)
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	for name, trust := range map[string]func(*Options){
		"CAFile": func(o *Options) { o.CAFile = caFile },
		"CAPEM":  func(o *Options) { o.CAPEM = string(pem) },
	} {
		t.Run(name, func(t *testing.T) {
			c := newClient(t, func(o *Options) { o.BaseURL = url }, trust)
			res, err := c.Chat(bg(), chatReq("over tls"))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Text(); got != "Echo: over tls" {
				t.Fatalf("text %q", got)
			}
		})
	}
}

func TestUnknownCAIsANetworkErrorThatSaysSo(t *testing.T) {
	url, _ := startTLSMock(t)
	c := newClient(t, func(o *Options) { o.BaseURL = url; o.MaxRetries = -1 })
	_, err := c.Chat(bg(), chatReq("over tls"))
	if !errors.Is(err, ErrNetwork) {
		t.Fatalf("want a network error, got %v", err)
	}
	if !strings.Contains(err.Error(), "not signed by a trusted CA") {
		t.Fatalf("the error does not say why: %v", err)
	}
}

func TestBadTrustOptionsAreRefusedAtCreation(t *testing.T) {
	for name, o := range map[string]Options{
		"CAFile":      {CAFile: filepath.Join(t.TempDir(), "missing.pem")},
		"CAPEM":       {CAPEM: "not a certificate"},
		"TLSVerifier": {TLSVerifier: "sometimes"},
	} {
		t.Run(name, func(t *testing.T) {
			o.BaseURL, o.APIKey = mockURL, testKey
			c, err := NewClient(o)
			if err == nil {
				c.Close()
				t.Fatal("NewClient accepted it")
			}
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("want an invalid-argument error, got %v", err)
			}
		})
	}
}
