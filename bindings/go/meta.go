package gw

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// ResponseMeta describes the HTTP exchange behind a call: on failure it is in Error.Meta,
// on success ask for it with WithResponseMeta(&m). It comes from gw_client_last_response
// on the handle derived for that one call, so concurrent calls never see each other's.
type ResponseMeta struct {
	Status    int           // the final HTTP status
	RequestID string        // the gateway's request id header, "" when it sent none
	Header    http.Header   // the final answer's headers
	Attempts  int           // 1 + the retries gw made
	Elapsed   time.Duration // the whole call, retries included
	URL       string        // the URL of the final attempt (never with the key in it)
}

type metaJSON struct {
	Status    int               `json:"status"`
	RequestID *string           `json:"request_id"`
	Headers   map[string]string `json:"headers"`
	Attempts  int               `json:"attempts"`
	ElapsedMS int64             `json:"elapsed_ms"`
	URL       string            `json:"url"`
}

func parseMeta(raw []byte) *ResponseMeta {
	var j metaJSON
	if len(raw) == 0 || json.Unmarshal(raw, &j) != nil {
		return nil
	}
	m := &ResponseMeta{
		Status:   j.Status,
		Header:   make(http.Header, len(j.Headers)),
		Attempts: j.Attempts,
		Elapsed:  time.Duration(j.ElapsedMS) * time.Millisecond,
		URL:      j.URL,
	}
	if j.RequestID != nil {
		m.RequestID = *j.RequestID
	}
	for k, v := range j.Headers {
		m.Header.Set(k, v)
	}
	return m
}

// RateLimit is what the x-ratelimit-* headers said; -1 where a header was absent.
type RateLimit struct {
	LimitRequests, RemainingRequests int64
	LimitTokens, RemainingTokens     int64
	ResetRequests, ResetTokens       string // as sent, e.g. "1s" or "6m0s"
}

// RateLimit reads the x-ratelimit-* headers of the answer.
func (m *ResponseMeta) RateLimit() RateLimit {
	num := func(name string) int64 {
		n, err := strconv.ParseInt(m.Header.Get(name), 10, 64)
		if err != nil {
			return -1
		}
		return n
	}
	return RateLimit{
		LimitRequests:     num("X-Ratelimit-Limit-Requests"),
		RemainingRequests: num("X-Ratelimit-Remaining-Requests"),
		LimitTokens:       num("X-Ratelimit-Limit-Tokens"),
		RemainingTokens:   num("X-Ratelimit-Remaining-Tokens"),
		ResetRequests:     m.Header.Get("X-Ratelimit-Reset-Requests"),
		ResetTokens:       m.Header.Get("X-Ratelimit-Reset-Tokens"),
	}
}

// RetryAfter is the wait the answer asked for (retry-after-ms, then Retry-After in
// seconds or as an HTTP date), and whether it asked.
func (m *ResponseMeta) RetryAfter() (time.Duration, bool) {
	if v := m.Header.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := m.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}
