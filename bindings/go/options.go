package gw

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"time"
)

// Options configure a Client. The zero value of every field means gw's default (see the
// table in the repository README); durations below zero mean "no limit".
type Options struct {
	BaseURL string // "" -> $GW_BASE_URL; a trailing "/" or "/v1" is fine
	APIKey  string // "" -> $GW_API_KEY; never printed (String and GoString redact it)

	ConnectTimeout   time.Duration // default 10s
	FirstByteTimeout time.Duration // wait for an answer's head once sent (a model may think long); default 10m
	ReadTimeout      time.Duration // longest silence in an answer or a stream; default 60s
	TotalTimeout     time.Duration // a whole call, retries and stream included; default 10m

	MaxRetries     int           // retries after the first attempt; 0 -> 2, below 0 -> none
	RetryBaseDelay time.Duration // default 500ms
	RetryMaxDelay  time.Duration // default 8s
	RetryAfterCap  time.Duration // longest Retry-After honoured; default 60s

	Proxy                  string            // http:// or https:// (SOCKS is refused); default from HTTP(S)_PROXY
	Headers                map[string]string // extra headers on every request
	DisableValidation      bool              // skip the documented-limit checks before sending
	DisableIdempotencyKeys bool              // no automatic Idempotency-Key on POSTs
	AllowInsecureHTTP      bool              // allow plain http:// to a host that is not loopback
	MaxResponseBytes       int64             // default 64 MiB
	MaxLineBytes           int64             // longest stream line; default 4 MiB
	MaxEventBytes          int64             // largest data of one stream event; default 8 MiB
	MaxIdleConnections     int               // pooled connections kept; size it for your concurrency; default 16
	UserAgent              string            // appended to gw/<version>

	// Trust, for a gateway whose certificate a private CA signed (a corporate proxy that
	// inspects TLS, an internal deployment). The built-in roots stay trusted besides.
	CAFile      string // a PEM file of CA certificates
	CAPEM       string // PEM text of CA certificates
	TLSVerifier string // BuiltinTransport: "webpki" (gw's bundled roots; the default) or "platform" (the OS store, where gw was built with it); net/http verifies against the system roots

	// HTTPClient, when set, sends every request of this Client: bring your own transport,
	// proxy, TLS settings and middleware (otelhttp). Wrap a bare http.RoundTripper as
	// &http.Client{Transport: rt}. gw still decides retries, backoff, redirects (the
	// client's CheckRedirect is not used: gw follows them itself, with the cross-origin
	// rule), deadlines and everything else; its Timeout, when set, bounds each attempt,
	// a stream's body included (leave it 0 and use TotalTimeout). The connection options
	// below (ConnectTimeout, Proxy, CAFile, CAPEM, TLSVerifier, MaxIdleConnections) belong
	// to that client's transport then, and setting them here is an error. nil: a
	// net/http transport gw makes from those options.
	HTTPClient *http.Client

	// BuiltinTransport sends through gw's own transport (rustls, gw's connection pool,
	// socket-level cancellation) instead of net/http: each call then holds an OS thread
	// while it runs, bounded by MaxInFlight. Not with HTTPClient.
	BuiltinTransport bool

	// MaxInFlight bounds the calls of this Client in flight at once (an open stream counts
	// until it ends or is closed). Calls beyond it wait in Go, holding no thread, until a
	// slot frees or their context ends. 0 means no limit with net/http (a call waiting on
	// the network is a parked goroutine, not a thread) and DefaultMaxInFlight with
	// BuiltinTransport (where each call holds an OS thread); below 0, no limit.
	MaxInFlight int

	// Observer, when set, is told of the start and end of every attempt of every call
	// (tracing, metrics); nil costs nothing.
	Observer Observer
}

// DefaultMaxInFlight is Options.MaxInFlight's zero value with BuiltinTransport: enough for
// a typical service on a few cores (a call blocked on the network costs an OS thread
// there, not CPU), far below Go's 10,000-thread limit.
const DefaultMaxInFlight = 64

// inFlightLimit is the semaphore size MaxInFlight asks for; 0 means no limit.
func (o *Options) inFlightLimit() int {
	switch {
	case o.MaxInFlight == 0 && o.BuiltinTransport:
		return DefaultMaxInFlight
	case o.MaxInFlight <= 0:
		return 0
	}
	return o.MaxInFlight
}

// String redacts the key, so %v and %+v never print it.
func (o Options) String() string {
	o.APIKey = redact(o.APIKey)
	type plain Options // no String method: no recursion
	return fmt.Sprintf("%+v", plain(o))
}

// GoString redacts the key for %#v.
func (o Options) GoString() string {
	o.APIKey = redact(o.APIKey)
	type plain Options
	return fmt.Sprintf("%#v", plain(o))
}

func redact(key string) string {
	if key == "" {
		return ""
	}
	return "[redacted]"
}

// optionsJSON is the options object gw_client_create takes; absent keys are defaults.
type optionsJSON struct {
	BaseURL           string            `json:"base_url,omitempty"`
	APIKey            string            `json:"api_key,omitempty"`
	ConnectTimeoutMS  *int64            `json:"connect_timeout_ms,omitempty"`
	FirstByteMS       *int64            `json:"first_byte_timeout_ms,omitempty"`
	ReadTimeoutMS     *int64            `json:"read_timeout_ms,omitempty"`
	TotalTimeoutMS    *int64            `json:"total_timeout_ms,omitempty"`
	MaxRetries        *int              `json:"max_retries,omitempty"`
	RetryBaseDelayMS  *int64            `json:"retry_base_delay_ms,omitempty"`
	RetryMaxDelayMS   *int64            `json:"retry_max_delay_ms,omitempty"`
	RetryAfterCapMS   *int64            `json:"retry_after_cap_ms,omitempty"`
	Proxy             string            `json:"proxy,omitempty"`
	Headers           map[string]string `json:"headers,omitempty"`
	Validate          *bool             `json:"validate,omitempty"`
	AllowInsecureHTTP bool              `json:"allow_insecure_http,omitempty"`
	MaxResponseBytes  int64             `json:"max_response_bytes,omitempty"`
	MaxLineBytes      int64             `json:"max_line_bytes,omitempty"`
	MaxEventBytes     int64             `json:"max_event_bytes,omitempty"`
	MaxIdle           int               `json:"max_idle_connections,omitempty"`
	IdempotencyKeys   *bool             `json:"idempotency_keys,omitempty"`
	UserAgent         string            `json:"user_agent,omitempty"`
	CAFile            string            `json:"ca_file,omitempty"`
	CAPEM             string            `json:"ca_pem,omitempty"`
	TLSVerifier       string            `json:"tls_verifier,omitempty"`
}

// timeoutMS maps a Duration to gw's milliseconds: nil (default) for 0, 0 (none) below 0,
// and at least 1 ms otherwise, rounded up so a deadline is never earlier than asked.
func timeoutMS(d time.Duration) *int64 {
	switch {
	case d == 0:
		return nil
	case d < 0:
		var zero int64
		return &zero
	}
	ms := int64((d + time.Millisecond - 1) / time.Millisecond)
	return &ms
}

func (o *Options) json() ([]byte, error) {
	j := optionsJSON{
		BaseURL:           o.BaseURL,
		APIKey:            o.APIKey,
		ConnectTimeoutMS:  timeoutMS(o.ConnectTimeout),
		FirstByteMS:       timeoutMS(o.FirstByteTimeout),
		ReadTimeoutMS:     timeoutMS(o.ReadTimeout),
		TotalTimeoutMS:    timeoutMS(o.TotalTimeout),
		RetryBaseDelayMS:  timeoutMS(o.RetryBaseDelay),
		RetryMaxDelayMS:   timeoutMS(o.RetryMaxDelay),
		RetryAfterCapMS:   timeoutMS(o.RetryAfterCap),
		Proxy:             o.Proxy,
		Headers:           o.Headers,
		AllowInsecureHTTP: o.AllowInsecureHTTP,
		MaxResponseBytes:  o.MaxResponseBytes,
		MaxLineBytes:      o.MaxLineBytes,
		MaxEventBytes:     o.MaxEventBytes,
		MaxIdle:           o.MaxIdleConnections,
		UserAgent:         o.UserAgent,
		CAFile:            o.CAFile,
		CAPEM:             o.CAPEM,
		TLSVerifier:       o.TLSVerifier,
	}
	j.MaxRetries = retries(o.MaxRetries)
	if o.DisableValidation {
		j.Validate = new(bool)
	}
	if o.DisableIdempotencyKeys {
		j.IdempotencyKeys = new(bool)
	}
	b, err := json.Marshal(j)
	return append(b, 0), err
}

func retries(n int) *int {
	switch {
	case n == 0:
		return nil
	case n < 0:
		n = 0
	}
	return &n
}

// CallOption adjusts one call: gw.WithTimeout(5*time.Second), gw.WithHeader("X-Trace", id).
type CallOption func(*callConfig)

type callConfig struct {
	timeout        time.Duration
	readTimeout    time.Duration
	firstByte      time.Duration
	maxRetries     int
	headers        map[string]string
	idempotencyKey string
	validate       *bool
	meta           *ResponseMeta
	apiKey         string
	hasKey         bool // WithAPIKey("") is an error, not the client's key
	baseURL        string
	hasBaseURL     bool
}

// WithTimeout bounds the whole call (retries and stream included); the context's
// deadline, when earlier, wins.
func WithTimeout(d time.Duration) CallOption { return func(c *callConfig) { c.timeout = d } }

// WithReadTimeout sets the longest silence while waiting for bytes, for this call.
func WithReadTimeout(d time.Duration) CallOption {
	return func(c *callConfig) { c.readTimeout = d }
}

// WithFirstByteTimeout sets the longest wait for the answer's head once the request is
// sent, for this call (a reasoning model may think for minutes before its first byte).
func WithFirstByteTimeout(d time.Duration) CallOption {
	return func(c *callConfig) { c.firstByte = d }
}

// WithHeader adds a header to this call's requests (over the client's own headers).
func WithHeader(name, value string) CallOption {
	return func(c *callConfig) {
		if c.headers == nil {
			c.headers = map[string]string{}
		}
		c.headers[name] = value
	}
}

// WithIdempotencyKey sends Idempotency-Key, the same on every retry of this call.
func WithIdempotencyKey(key string) CallOption {
	return func(c *callConfig) { c.idempotencyKey = key }
}

// WithMaxRetries sets this call's retries after the first attempt (0: none).
func WithMaxRetries(n int) CallOption {
	return func(c *callConfig) {
		if n <= 0 {
			n = -1
		}
		c.maxRetries = n
	}
}

// WithValidation turns the documented-limit checks on or off for this call.
func WithValidation(on bool) CallOption { return func(c *callConfig) { c.validate = &on } }

// WithAPIKey sends this call with key instead of the client's (one Client serving several
// tenants, on one connection pool). gw checks it as it checks Options.APIKey, never
// prints it, and sends it only to the call's own origin: a redirect elsewhere goes
// without it.
func WithAPIKey(key string) CallOption {
	return func(c *callConfig) { c.apiKey = key; c.hasKey = true }
}

// WithBaseURL sends this call to url instead of the client's gateway, checked as
// Options.BaseURL is (plain http:// only to loopback unless the client has
// AllowInsecureHTTP). Calls to the client's own origin reuse its pooled connections;
// another origin gets connections of its own in the same pool. Pair it with WithAPIKey
// when that gateway wants another key: the client's key goes with it otherwise.
func WithBaseURL(url string) CallOption {
	return func(c *callConfig) { c.baseURL = url; c.hasBaseURL = true }
}

// WithResponseMeta fills *m with the call's HTTP metadata (status, request id, headers,
// attempts, elapsed time) when the call returns, success or failure.
func WithResponseMeta(m *ResponseMeta) CallOption { return func(c *callConfig) { c.meta = m } }

// deriveOptions is the per-call override object of gw_client_create_derived; nil when the
// call needs none (gw then takes every setting from the client).
func (c *callConfig) deriveOptions(deadline time.Time, hasDeadline bool) []byte {
	timeout := c.timeout
	if hasDeadline {
		left := time.Until(deadline)
		if left <= 0 {
			left = time.Nanosecond // rounds up to 1 ms; the context reports the deadline
		}
		if timeout <= 0 || left < timeout {
			timeout = left
		}
	}
	others := c.readTimeout != 0 || c.firstByte != 0 || c.maxRetries != 0 || c.headers != nil ||
		c.idempotencyKey != "" || c.validate != nil || c.hasKey || c.hasBaseURL
	if timeout == 0 && !others {
		return nil
	}
	if !others {
		// The common case (a context deadline) without encoding/json.
		b := append(make([]byte, 0, 48), `{"total_timeout_ms":`...)
		b = strconv.AppendInt(b, *timeoutMS(timeout), 10)
		return append(b, '}', 0)
	}
	j := struct {
		TotalTimeoutMS *int64            `json:"total_timeout_ms,omitempty"`
		ReadTimeoutMS  *int64            `json:"read_timeout_ms,omitempty"`
		FirstByteMS    *int64            `json:"first_byte_timeout_ms,omitempty"`
		MaxRetries     *int              `json:"max_retries,omitempty"`
		Headers        map[string]string `json:"headers,omitempty"`
		IdempotencyKey string            `json:"idempotency_key,omitempty"`
		Validate       *bool             `json:"validate,omitempty"`
		APIKey         *string           `json:"api_key,omitempty"`
		BaseURL        *string           `json:"base_url,omitempty"`
	}{
		TotalTimeoutMS: timeoutMS(timeout),
		ReadTimeoutMS:  timeoutMS(c.readTimeout),
		FirstByteMS:    timeoutMS(c.firstByte),
		MaxRetries:     retries(c.maxRetries),
		Headers:        maps.Clone(c.headers),
		IdempotencyKey: c.idempotencyKey,
		Validate:       c.validate,
	}
	if c.hasKey {
		j.APIKey = &c.apiKey
	}
	if c.hasBaseURL {
		j.BaseURL = &c.baseURL
	}
	b, _ := json.Marshal(j) // plain strings, numbers and a string map: cannot fail
	return append(b, 0)
}
