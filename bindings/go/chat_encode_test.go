package gw

import (
	"bytes"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// sameAsReflected checks that the hand-written encoding of r is byte for byte what
// encoding/json writes for it, or that it declines r.
func sameAsReflected(t *testing.T, r ChatRequest) bool {
	t.Helper()
	fast, ok := appendChatRequest(&r)
	want, err := r.marshalReflected()
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("encoding/json refused a request the fast path wrote: %v\n%s", err, fast)
	}
	if len(fast) == 0 || fast[len(fast)-1] != 0 || bytes.IndexByte(fast[:len(fast)-1], 0) >= 0 {
		t.Fatalf("not one NUL at the end: %q", fast)
	}
	if got := fast[:len(fast)-1]; !bytes.Equal(got, want) {
		t.Fatalf("fast path differs from encoding/json:\n got %s\nwant %s", got, want)
	}
	return true
}

// Strings that take every branch of appendJSONString: each ASCII byte, escapes, <>&,
// multi-byte UTF-8, U+2028/9, invalid UTF-8 and NUL.
func trickyStrings() []string {
	out := []string{"", "plain", `quote " and \ backslash`, "tab\tnl\ncr\r", "<b>&amp;</b>",
		"héllo wörld", "日本語", "emoji 🎉", "line\u2028sep\u2029", "bad \xff utf8", "\xe2\x80", "nul\x00byte",
		"bell\a back\b ff\f vt\v esc\x1b del\x7f", strings.Repeat("long ", 400)}
	for c := 0; c < 128; c++ {
		out = append(out, "a"+string(rune(c))+"z")
	}
	return out
}

func TestChatEncodingMatchesEncodingJSON(t *testing.T) {
	for _, s := range trickyStrings() {
		r := ChatRequest{Model: s, Messages: []Message{UserMessage(s), {Role: "assistant", Content: Text(s),
			ReasoningContent: s, Name: s, ToolCallID: s}}, Stop: []string{s, "x"}, User: s, ReasoningEffort: s}
		if !sameAsReflected(t, r) {
			t.Fatalf("declined a text request (string %q)", s)
		}
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 0.7, 1.5, 2, 1e-6, 9.99e-7, 1e-7, 1.234e-9,
		1e20, 1e21, 1.5e21, -3e-8, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, 1.0 / 3}
	for _, f := range floats {
		f := f
		r := ChatRequest{Model: "m", Messages: []Message{UserMessage("q")}, Temperature: &f, TopP: &f,
			FrequencyPenalty: &f, PresencePenalty: &f}
		if !sameAsReflected(t, r) {
			t.Fatalf("declined temperature %v", f)
		}
	}
	seed, top, par := int64(-42), 3, false
	full := ChatRequest{Model: "m", Messages: []Message{SystemMessage("s"), {Role: "user", Content: Content{null: true}}},
		MaxTokens: 99, Seed: &seed, N: 2, Logprobs: true, TopLogprobs: &top, ParallelToolCalls: &par}
	if !sameAsReflected(t, full) {
		t.Fatal("declined the numeric fields")
	}
	if !sameAsReflected(t, ChatRequest{Model: "m", Messages: []Message{}}) {
		t.Fatal("declined an empty message list")
	}
}

// Random requests: any field set or not, strings pieced from tricky ones.
func TestChatEncodingRandomRequests(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	pieces := trickyStrings()
	str := func() string {
		var b strings.Builder
		for n := rng.Intn(4); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	maybe := func() bool { return rng.Intn(2) == 0 }
	for i := 0; i < 3000; i++ {
		r := ChatRequest{Model: str()}
		for n := rng.Intn(4); n >= 0; n-- {
			m := Message{Role: str(), Content: Text(str())}
			if maybe() {
				m.Name, m.ToolCallID, m.ReasoningContent = str(), str(), str()
			}
			r.Messages = append(r.Messages, m)
		}
		if maybe() {
			f := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.Intn(50)-25))
			r.Temperature, r.PresencePenalty = &f, &f
		}
		if maybe() {
			r.MaxTokens, r.N, r.User, r.Stop = rng.Intn(5000)-10, rng.Intn(3), str(), []string{str()}
		}
		if !sameAsReflected(t, r) {
			t.Fatalf("declined %+v", r)
		}
	}
}

// What the fast path does not write goes through encoding/json, whole.
func TestChatEncodingDeclines(t *testing.T) {
	nan := math.NaN()
	for name, r := range map[string]ChatRequest{
		"tools":           {Model: "m", Messages: []Message{UserMessage("q")}, Tools: []Tool{FunctionTool("f", "", nil)}},
		"tool choice":     {Model: "m", Messages: []Message{UserMessage("q")}, ToolChoice: "auto"},
		"response format": {Model: "m", Messages: []Message{UserMessage("q")}, ResponseFormat: JSONObjectFormat()},
		"metadata":        {Model: "m", Messages: []Message{UserMessage("q")}, Metadata: map[string]string{"a": "b"}},
		"extra":           {Model: "m", Messages: []Message{UserMessage("q")}, Extra: Extra{"x": 1}},
		"parts":           {Model: "m", Messages: []Message{UserParts(TextPart("q"))}},
		"tool calls":      {Model: "m", Messages: []Message{{Role: "assistant", ToolCalls: []ToolCall{{ID: "c"}}}}},
		"message extra":   {Model: "m", Messages: []Message{{Role: "user", Content: Text("q"), Extra: Extra{"x": 1}}}},
		"nil messages":    {Model: "m"},
		"NaN":             {Model: "m", Messages: []Message{UserMessage("q")}, Temperature: &nan},
	} {
		if _, ok := appendChatRequest(&r); ok {
			t.Errorf("%s: written by the fast path", name)
		}
	}
	// And encodeRequest still encodes them (NaN excepted: encoding/json refuses it).
	r := ChatRequest{Model: "m", Messages: []Message{UserMessage("q")}, Metadata: map[string]string{"a": "b"}}
	b, err := r.encodeRequest()
	if err != nil || !bytes.HasSuffix(b, []byte("}\x00")) || !bytes.Contains(b, []byte(`"metadata":{"a":"b"}`)) {
		t.Fatalf("encodeRequest: %q, %v", b, err)
	}
}

func FuzzChatEncoding(f *testing.F) {
	for _, s := range trickyStrings()[:14] {
		f.Add(s, s, 0.5)
	}
	f.Fuzz(func(t *testing.T, model, text string, temperature float64) {
		r := ChatRequest{Model: model, Messages: []Message{UserMessage(text)}, Temperature: &temperature}
		if _, ok := appendChatRequest(&r); ok {
			sameAsReflected(t, r)
		}
	})
}
