package gw_test

// The conformance corpus (conformance/) run through the Go binding's public API against
// gw-mock: every case file is a case here, as in every other binding's runner. It runs
// when GW_CONFORMANCE_DIR is set (scripts/conformance.sh, `make conformance`); it writes
// $GW_CONFORMANCE_OUT/go.tsv and prints `conformance go: P passed, F failed, S skipped`.
// A case the Go API cannot express fails here unless conformance/skip.json lists it under
// "go" with the reason.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gw-dev/gw/bindings/go"
)

func TestConformance(t *testing.T) {
	dir := os.Getenv("GW_CONFORMANCE_DIR")
	if dir == "" {
		t.Skip("GW_CONFORMANCE_DIR is not set: the corpus runs from scripts/conformance.sh (make conformance)")
	}
	base := os.Getenv("GW_MOCK_URL")
	if base == "" {
		base = os.Getenv("GW_TEST_BASE_URL")
	}
	if base == "" {
		t.Fatal("conformance go: GW_MOCK_URL (or GW_TEST_BASE_URL) must name the gw-mock to run against")
	}
	out := os.Getenv("GW_CONFORMANCE_OUT")
	if out == "" {
		out = filepath.Join(dir, "..", "build", "conformance")
	}
	mock := &mockControl{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: 10 * time.Second}}
	// Both transports, each its own "language": "go" is gw's built-in transport,
	// "go-nethttp" the exchange driven over net/http (the default), which also skips what
	// "go" skips (the Go API is the same).
	for _, transport := range []struct {
		language string
		builtin  bool
	}{{"go", true}, {"go-nethttp", false}} {
		t.Run(transport.language, func(t *testing.T) {
			corpus := loadCorpus(t, dir, transport.language)
			if transport.language != "go" {
				for name, why := range loadCorpus(t, dir, "go").skips {
					if _, own := corpus.skips[name]; !own {
						corpus.skips[name] = why
					}
				}
			}
			for i := range corpus.cases {
				cc := &corpus.cases[i]
				if why, ok := corpus.skips[cc.name]; ok {
					corpus.record(cc.name, "skip", why)
					continue
				}
				seen, err := runCase(mock, base, cc, transport.builtin)
				why := ""
				if err != nil {
					why = err.Error()
				} else {
					why = check(cc, seen, statusName)
				}
				if why == "" {
					corpus.record(cc.name, "pass", "")
				} else {
					corpus.record(cc.name, "fail", why)
				}
			}
			corpus.finish(t, out)
		})
	}
}

func statusName(status int) string { return (&gw.Error{Status: status}).StatusName() }

// mockControl is gw-mock's /__mock endpoints over plain net/http (no auth, never recorded).
type mockControl struct {
	base string
	http *http.Client
}

func (m *mockControl) call(method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(method, m.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := m.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("mock %s %s: %d %s", method, path, resp.StatusCode, text)
	}
	return text, nil
}

// recordedRequest is one entry of GET /__mock/requests.
type recordedRequest struct {
	Query   *string     `json:"query"`
	Headers [][2]string `json:"headers"`
	JSON    any         `json:"json"`
}

func (m *mockControl) requests() ([]recordedRequest, error) {
	text, err := m.call("GET", "/__mock/requests", nil)
	if err != nil {
		return nil, err
	}
	var list []recordedRequest
	if err := json.Unmarshal(text, &list); err != nil {
		return nil, fmt.Errorf("mock requests: %w", err)
	}
	return list, nil
}

// notExpressible marks a case the Go API cannot write; skip.json must list it.
func notExpressible(format string, args ...any) error {
	return fmt.Errorf("the Go API cannot express this case (list it in skip.json under \"go\"): "+format, args...)
}

// clientOptions maps the case's options (snake_case JSON, the README's Options table) onto
// gw.Options, as a Go user would write them.
func clientOptions(raw map[string]json.RawMessage) (gw.Options, error) {
	var o gw.Options
	for _, key := range sortedKeys(raw) {
		v := raw[key]
		var err error
		read := func(dst any) bool {
			if e := json.Unmarshal(v, dst); e != nil {
				err = notExpressible("option %s %s: %v", key, v, e)
			}
			return err == nil
		}
		text := func(dst *string) {
			if read(dst) && *dst == "" {
				err = notExpressible(`option %s "": gw.Options reads "" as "use the default"`, key)
			}
		}
		flag := func(dst *bool, negate bool) {
			var b bool
			if read(&b) {
				*dst = b != negate
			}
		}
		// ms: gw's 0 (none) is a negative Duration in gw.Options, whose 0 is the default.
		ms := func(dst *time.Duration) {
			var n int64
			switch {
			case !read(&n):
			case n < 0:
				err = notExpressible("option %s %d: a negative Duration means none in gw.Options", key, n)
			case n == 0:
				*dst = -1
			default:
				*dst = time.Duration(n) * time.Millisecond
			}
		}
		size := func(dst *int64) {
			if read(dst) && *dst == 0 {
				err = notExpressible("option %s 0: gw.Options reads 0 as the default", key)
			}
		}
		switch key {
		case "base_url":
			text(&o.BaseURL)
		case "api_key":
			text(&o.APIKey)
		case "proxy":
			text(&o.Proxy)
		case "user_agent":
			text(&o.UserAgent)
		case "headers":
			read(&o.Headers)
		case "connect_timeout_ms":
			ms(&o.ConnectTimeout)
		case "first_byte_timeout_ms":
			ms(&o.FirstByteTimeout)
		case "read_timeout_ms":
			ms(&o.ReadTimeout)
		case "total_timeout_ms":
			ms(&o.TotalTimeout)
		case "retry_base_delay_ms":
			ms(&o.RetryBaseDelay)
		case "retry_max_delay_ms":
			ms(&o.RetryMaxDelay)
		case "retry_after_cap_ms":
			ms(&o.RetryAfterCap)
		case "max_retries":
			// gw.Options: 0 means the default (2), below 0 means none.
			switch {
			case !read(&o.MaxRetries):
			case o.MaxRetries < 0:
				err = notExpressible("option max_retries %d: below 0 means none in gw.Options", o.MaxRetries)
			case o.MaxRetries == 0:
				o.MaxRetries = -1
			}
		case "validate":
			flag(&o.DisableValidation, true)
		case "idempotency_keys":
			flag(&o.DisableIdempotencyKeys, true)
		case "allow_insecure_http":
			flag(&o.AllowInsecureHTTP, false)
		case "max_response_bytes":
			size(&o.MaxResponseBytes)
		case "max_line_bytes":
			size(&o.MaxLineBytes)
		case "max_event_bytes":
			size(&o.MaxEventBytes)
		case "max_idle_connections":
			var n int64
			size(&n)
			o.MaxIdleConnections = int(n)
		default:
			err = notExpressible("option %q: gw.Options has no such field", key)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

func family(args map[string]any) (gw.VideoFamily, error) {
	switch args["family"] {
	case "unified":
		return gw.VideoUnified, nil
	case "character":
		return gw.VideoCharacter, nil
	case "vendor_k":
		return gw.VideoVendorK, nil
	case "vendor_r":
		return gw.VideoVendorR, nil
	}
	return 0, notExpressible("video family %v", args["family"])
}

// waitOptions maps args.wait ({"interval_ms", "timeout_ms"}) onto gw.WaitOptions.
func waitOptions(args map[string]any) (gw.WaitOptions, error) {
	var w gw.WaitOptions
	raw, present := args["wait"]
	if !present {
		return w, nil
	}
	fields, ok := raw.(map[string]any)
	if !ok {
		return w, notExpressible("wait options %s: gw.WaitOptions is a struct of durations", show(raw, true))
	}
	for k, v := range fields {
		n, ok := v.(float64)
		if !ok || n == 0 {
			return w, notExpressible("wait option %s %s: gw.WaitOptions takes a non-zero duration", k, show(v, true))
		}
		d := time.Duration(n * float64(time.Millisecond))
		switch k {
		case "interval_ms":
			w.Interval = d
		case "timeout_ms":
			w.Timeout = d
		default:
			return w, notExpressible("wait option %q: gw.WaitOptions has no such field", k)
		}
	}
	return w, nil
}

// outcome is what one call through the API gave.
type outcome struct {
	raw    json.RawMessage
	meta   *gw.ResponseMeta
	err    error
	events []seenEvent
}

// invocation is one prepared call of a verb; ctx cancels it.
type invocation func(ctx context.Context) outcome

func argText(args map[string]any, name string) string {
	s, _ := args[name].(string)
	return s
}

// prepare turns a verb and its arguments into the call a Go user would write.
func prepare(c *gw.Client, verb string, body json.RawMessage, hasBody bool, args map[string]any) (invocation, error) {
	type rawCall func(ctx context.Context, req json.RawMessage, opts ...gw.CallOption) (json.RawMessage, error)
	plain := func(f func(ctx context.Context, opts ...gw.CallOption) (json.RawMessage, error)) invocation {
		return func(ctx context.Context) outcome {
			var m gw.ResponseMeta
			raw, err := f(ctx, gw.WithResponseMeta(&m))
			return outcome{raw: raw, meta: &m, err: err}
		}
	}
	withBody := func(f rawCall) invocation {
		return plain(func(ctx context.Context, opts ...gw.CallOption) (json.RawMessage, error) {
			return f(ctx, body, opts...)
		})
	}
	type streamCall func(ctx context.Context, req json.RawMessage, opts ...gw.CallOption) (*gw.Stream[json.RawMessage], error)
	streamed := func(open streamCall) invocation {
		return func(ctx context.Context) outcome {
			s, err := open(ctx, body)
			if err != nil {
				return outcome{err: err}
			}
			defer s.Close()
			var events []seenEvent
			for ev, err := range s.Events() {
				if err != nil {
					break // Result gives the same error
				}
				events = append(events, seenEvent{name: ev.Name, textDelta: ev.TextDelta, choice: ev.ChoiceIndex})
			}
			raw, err := s.Result()
			return outcome{raw: raw, meta: s.Meta(), err: err, events: events}
		}
	}
	id := argText(args, "id")
	switch verb {
	case "chat":
		return withBody(c.ChatRaw), nil
	case "chatStream":
		return streamed(c.ChatStreamRaw), nil
	case "responses":
		return withBody(c.ResponsesRaw), nil
	case "responsesStream":
		return streamed(c.ResponsesStreamRaw), nil
	case "embeddings":
		return withBody(c.EmbeddingsRaw), nil
	case "imageGenerate":
		return withBody(c.ImageGenerateRaw), nil
	case "imageEdit":
		return withBody(c.ImageEditRaw), nil
	case "videoCreate":
		return withBody(c.VideoCreateRaw), nil
	case "videoGenerate":
		return withBody(c.VideoGenerateRaw), nil
	case "videoCharacter":
		return withBody(c.VideoCharacterRaw), nil
	case "videoRemix":
		return withBody(func(ctx context.Context, req json.RawMessage, opts ...gw.CallOption) (json.RawMessage, error) {
			return c.VideoRemixRaw(ctx, id, req, opts...)
		}), nil
	case "generateContent":
		model := argText(args, "model")
		return withBody(func(ctx context.Context, req json.RawMessage, opts ...gw.CallOption) (json.RawMessage, error) {
			return c.GenerateContentRaw(ctx, model, req, opts...)
		}), nil
	case "videoStatus":
		fam, err := family(args)
		if err != nil {
			return nil, err
		}
		return plain(func(ctx context.Context, opts ...gw.CallOption) (json.RawMessage, error) {
			return c.VideoStatusRaw(ctx, fam, id, opts...)
		}), nil
	case "videoWait":
		fam, err := family(args)
		if err != nil {
			return nil, err
		}
		w, err := waitOptions(args)
		if err != nil {
			return nil, err
		}
		return plain(func(ctx context.Context, opts ...gw.CallOption) (json.RawMessage, error) {
			return c.VideoWaitRaw(ctx, fam, id, w, opts...)
		}), nil
	case "request":
		method, path := argText(args, "method"), argText(args, "path")
		return plain(func(ctx context.Context, opts ...gw.CallOption) (json.RawMessage, error) {
			if !hasBody {
				return c.Do(ctx, method, path, nil, opts...) // no body at all, not "null"
			}
			return c.Do(ctx, method, path, body, opts...)
		}), nil
	}
	return nil, fmt.Errorf("the Go runner knows no verb %q", verb)
}

// decoded is JSON text as a value, or the text itself when it is not JSON.
func decoded(text []byte) any {
	var v any
	if json.Unmarshal(text, &v) != nil {
		return string(text)
	}
	return v
}

// fromError fills status, error fields and body from a call's error.
func fromError(seen *seenCall, err error) error {
	var e *gw.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("the error is not a *gw.Error: %T %v", err, err)
	}
	seen.status = e.Status
	seen.errFields = map[string]any{
		"status":  float64(e.Status),
		"type":    e.Type,
		"code":    e.Code,
		"param":   e.Param,
		"message": e.Message,
	}
	if len(e.Body) > 0 {
		seen.out = decoded(e.Body)
	}
	return nil
}

// metaText is everything a program could print of the metadata: %+v and its JSON.
func metaText(m *gw.ResponseMeta) string {
	b, _ := json.Marshal(m)
	return fmt.Sprintf("%+v %s", *m, b)
}

func runCase(mock *mockControl, base string, cc *corpusCase, builtin bool) (*seenCall, error) {
	if _, err := mock.call("POST", "/__mock/reset", []byte("{}")); err != nil {
		return nil, err
	}
	merged := map[string]json.RawMessage{
		"base_url":            json.RawMessage(fmt.Sprintf("%q", base)),
		"api_key":             json.RawMessage(`"sk-test"`),
		"retry_base_delay_ms": json.RawMessage("5"),
		"retry_max_delay_ms":  json.RawMessage("20"),
	}
	for k, v := range cc.Options {
		merged[k] = v
	}
	opts, err := clientOptions(merged)
	if err != nil {
		return nil, err
	}
	opts.BuiltinTransport = builtin
	body, hasBody := cc.Request, cc.Request != nil
	if cc.RequestText != nil {
		body, hasBody = json.RawMessage(*cc.RequestText), true // as written: not JSON, a NUL, ...
	}
	args := cc.Args
	if args == nil {
		args = map[string]any{}
	}
	seen := &seenCall{attempts: -1}
	setupRequests := 0
	client, err := gw.NewClient(opts)
	if err != nil {
		if err := fromError(seen, err); err != nil {
			return nil, err
		}
	} else {
		defer client.Close()
		if cc.Setup != nil {
			made, err := prepare(client, cc.Setup.Operation, cc.Setup.Request, true, nil)
			if err != nil {
				return nil, err
			}
			got := made(context.Background())
			if got.err != nil {
				return nil, fmt.Errorf("setup %s failed: %v", cc.Setup.Operation, got.err)
			}
			path := cc.Setup.IDPath
			if path == "" {
				path = "id"
			}
			id, _ := valueAt(decoded(got.raw), path)
			if _, ok := id.(string); !ok {
				return nil, fmt.Errorf("setup answer has no string at %s: %s", path, got.raw)
			}
			args = maps.Clone(args) // the case stays as read
			args["id"] = id
			recorded, err := mock.requests()
			if err != nil {
				return nil, err
			}
			setupRequests = len(recorded)
		}
		for _, fault := range cc.Faults {
			if _, err := mock.call("POST", "/__mock/faults", fault); err != nil {
				return nil, err
			}
		}
		call, err := prepare(client, cc.Operation, body, hasBody, args)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancelled := make(chan time.Time, 1)
		if cc.Cancel != nil {
			after := time.Duration(cc.Cancel.AfterMS) * time.Millisecond
			go func() {
				time.Sleep(after)
				cancelled <- time.Now()
				cancel()
			}()
		}
		got := call(ctx)
		returned := time.Now()
		if cc.Cancel != nil {
			d := returned.Sub(<-cancelled)
			seen.cancelToReturn = &d
		}
		cancel()
		seen.events = got.events
		meta := got.meta
		if got.err != nil {
			if err := fromError(seen, got.err); err != nil {
				return nil, err
			}
			var e *gw.Error
			errors.As(got.err, &e)
			meta = e.Meta
		} else {
			seen.status = 0
			seen.out = decoded(got.raw)
		}
		if meta != nil && meta.Attempts > 0 {
			seen.attempts = meta.Attempts
			seen.requestID = meta.RequestID != ""
			seen.metaText = metaText(meta)
		}
	}
	recorded, err := mock.requests()
	if err != nil {
		return nil, err
	}
	seen.sent = len(recorded) - setupRequests
	if n := len(recorded); n > 0 {
		last := recorded[n-1]
		seen.lastBody, seen.lastHeaders, seen.lastQuery = last.JSON, last.Headers, last.Query
	}
	return seen, nil
}
