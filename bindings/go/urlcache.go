package gw

import (
	"net/url"
	"strings"
)

// parsedURL is a request URL as gw gave it and as net/url parsed it. A client's calls
// mostly go to one URL (its chat endpoint, say): the client keeps the last one parsed,
// so a call to the same URL copies it instead of parsing it again.
type parsedURL struct {
	raw  string
	url  url.URL
	host string // the Host header net/http would derive (no empty port)
}

// requestURL parses raw (a view of gw's memory: only read here), or copies the last
// URL parsed when raw is the same.
func (st *clientState) requestURL(raw string) (*url.URL, string, error) {
	if last := st.lastURL.Load(); last != nil && last.raw == raw {
		u := last.url
		return &u, last.host, nil
	}
	owned := strings.Clone(raw)
	u, err := url.Parse(owned)
	if err != nil {
		return nil, "", err
	}
	p := &parsedURL{raw: owned, url: *u, host: removeEmptyPort(u.Host)}
	st.lastURL.Store(p)
	return u, p.host, nil
}

// removeEmptyPort strips the ":" of a host with an empty port, as net/http does for
// Request.Host.
func removeEmptyPort(host string) string {
	if strings.LastIndex(host, ":") > strings.LastIndex(host, "]") {
		return strings.TrimSuffix(host, ":")
	}
	return host
}
