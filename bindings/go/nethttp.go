package gw

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// The net/http side of a Client: the *http.Client its calls send through (Options.HTTPClient,
// or one made from the connection options), never following redirects itself.

// defaultIdleConnections is gw's max_idle_connections default, for the transport gw makes.
const defaultIdleConnections = 16

// gwFollowsRedirects hands every redirect back to gw, which follows it or refuses it
// (the cross-origin rule, the redirect cap).
func gwFollowsRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// netHTTPClient is the client a Client's calls use, and whether gw made its transport
// (Close then closes its idle connections). nil with BuiltinTransport.
func netHTTPClient(o *Options) (hc *http.Client, owned bool, err error) {
	const op = "new client"
	if o.BuiltinTransport {
		if o.HTTPClient != nil {
			return nil, false, argError(op, "options: HTTPClient and BuiltinTransport exclude each other")
		}
		return nil, false, nil
	}
	if o.HTTPClient != nil {
		for _, set := range []struct {
			name string
			on   bool
		}{
			{"ConnectTimeout", o.ConnectTimeout != 0},
			{"Proxy", o.Proxy != ""},
			{"CAFile", o.CAFile != ""},
			{"CAPEM", o.CAPEM != ""},
			{"TLSVerifier", o.TLSVerifier != ""},
			{"MaxIdleConnections", o.MaxIdleConnections != 0},
		} {
			if set.on {
				return nil, false, argError(op, "options: %s configures connections, which HTTPClient's transport makes: set it there", set.name)
			}
		}
		c := *o.HTTPClient
		c.CheckRedirect = gwFollowsRedirects
		return &c, false, nil
	}
	t, err := ownTransport(o)
	if err != nil {
		return nil, false, err
	}
	return &http.Client{Transport: t, CheckRedirect: gwFollowsRedirects}, true, nil
}

// ownTransport is net/http's default transport with gw's connection options: connect
// timeout, proxy, trusted CAs and idle connections kept. gw_client_create has already
// checked them (a SOCKS proxy, a missing CA file and PEM that holds no certificate are
// refused there).
func ownTransport(o *Options) (*http.Transport, error) {
	const op = "new client"
	t := http.DefaultTransport.(*http.Transport).Clone()
	connect := 10 * time.Second
	switch {
	case o.ConnectTimeout > 0:
		connect = o.ConnectTimeout
	case o.ConnectTimeout < 0:
		connect = 0
	}
	dialer := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	t.DialContext = dialer.DialContext
	if o.Proxy != "" {
		u, err := url.Parse(o.Proxy)
		if err != nil {
			return nil, argError(op, "options: proxy: %v", err)
		}
		t.Proxy = http.ProxyURL(u)
	}
	if o.CAFile != "" || o.CAPEM != "" {
		roots, err := x509.SystemCertPool()
		if err != nil || roots == nil {
			roots = x509.NewCertPool()
		}
		for _, src := range []struct{ file, text string }{{o.CAFile, ""}, {"", o.CAPEM}} {
			pem := []byte(src.text)
			if src.file != "" {
				if pem, err = os.ReadFile(src.file); err != nil {
					return nil, argError(op, "options: ca_file: %v", err)
				}
			}
			if len(pem) > 0 && !roots.AppendCertsFromPEM(pem) {
				return nil, argError(op, "options: no certificate in the CA PEM")
			}
		}
		t.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	idle := defaultIdleConnections
	if o.MaxIdleConnections > 0 {
		idle = o.MaxIdleConnections
	}
	t.MaxIdleConns = 0 // no bound across hosts; per host below
	t.MaxIdleConnsPerHost = idle
	return t, nil
}
