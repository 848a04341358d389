package gw

import (
	"encoding/json"
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// decodedAlike decodes raw with T's hand-written decoder and with encoding/json, and
// fails when the decoder took raw but its value is not encoding/json's (or encoding/json
// refused it). It reports whether the decoder took raw.
func decodedAlike[T any, P interface {
	*T
	fastDecoder
}](t testing.TB, raw string) bool {
	t.Helper()
	fast, want := new(T), new(T)
	took := P(fast).decodeFast([]byte(raw))
	err := json.Unmarshal([]byte(raw), want)
	if !took {
		return false
	}
	if err != nil {
		t.Fatalf("the decoder took what encoding/json refuses (%v):\n%s", err, raw)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("the decoder differs from encoding/json for\n%s\n got %#v\nwant %#v", raw, fast, want)
	}
	return true
}

// The usual answers, and the unusual ones the decoder still reads itself.
var takenCompletions = []string{
	`{"id":"chatcmpl-1","object":"chat.completion","created":1795833046,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":"Echo: What is the capital of France?"},"finish_reason":"stop"}],"usage":{"prompt_tokens":6,"completion_tokens":7,"total_tokens":13}}`,
	" {\n \"id\" : \"x\" ,\r\n\t\"choices\" : [ ] , \"usage\" : null } \n",
	`{}`,
	`{"choices":null,"id":null,"created":null,"model":"m","system_fingerprint":"fp_1"}`,
	`{"choices":[{"index":1,"message":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":"tool_calls","logprobs":null}]}`,
	`{"choices":[{"message":{"content":"line\nbreak \"quoted\" back\\slash \/ tab\t \u00e9\u4e2d \ud83c\udf89 \u0000 \b\f\r","reasoning_content":"think","name":"n","tool_call_id":"t"}}]}`,
	`{"choices":[{"message":{"content":"héllo wörld 日本語 🎉"}},{"index":1,"message":null,"finish_reason":null}]}`,
	`{"usage":{"prompt_tokens":-0,"completion_tokens":9223372036854775807,"total_tokens":-9223372036854775808,"completion_tokens_details":{"reasoning_tokens":3,"other":[1,2.5e-3,{"a":[true,false,null]}]}}}`,
	`{"usage":{"completion_tokens_details":null},"service_tier":"default","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}],"x":"\u00e9 \ud83c\udf89 \/","Raw":"ignored","-":1}`,
	`{"choices":[{"message":{"tool_calls":null,"extra":{"nested":[[[]]]}},"index":0,"extra":-1.5E+10}],"created":0}`,
}

// Answers the decoder leaves to encoding/json: each says why.
var declinedCompletions = []string{
	`{"ID":"x"}`,                  // another case: encoding/json takes it for ID
	`{"Choices":[]}`,              // the same
	`{"system-fingerprint":"x"}`,  // close enough to fold: left to encoding/json
	`{"id":"a","id":"b"}`,         // twice
	`{"choices":[],"choices":[]}`, // twice
	`{"usage":{"total_tokens":1,"total_tokens":2}}`,
	`{"choices":[{"message":{"content":[{"type":"text","text":"hi"}]}}]}`, // parts
	`{"choices":[{"logprobs":{"content":[]}}]}`,                           // logprobs
	`{"choices":[null]}`,
	`{"choices":{}}`,
	`{"id":5}`,
	`{"created":1.5}`,
	`{"created":1e3}`,
	`{"created":99999999999999999999}`,
	`{"choices":[{"index":"0"}]}`,
	`{"id":"lone \ud83c surrogate"}`,
	`{"id":"low first \udf89\ud83c"}`,
	"{\"id\":\"bad \xff byte\"}",
	"{\"x\":\"bad \xff byte in a skipped string\"}",
	"{\"id\":\"raw \x01 control\"}",
	`{"id":"bad escape \x"}`,
	`{"id":"short \u12"}`,
	`{"i\u0064":"escaped key"}`,
	"{\"ïd\":\"non-ASCII key\"}",
	`{"x":01}`,
	`{"x":1.}`,
	`{"x":-}`,
	`{"x":+1}`,
	`{"x":tru}`,
	`{"x":nul}`,
	`{"x":[1,]}`,
	`{"x":1,}`,
	`{"x" 1}`,
	`{"id":"x"} trailing`,
	`{"id":"x"}{}`,
	`{"id":"x"`,
	`{"id":"x`,
	`null`,
	`[]`,
	`"text"`,
	``,
	"\ufeff{}",
	`{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
}

func TestChatDecodeTakesUsualAnswers(t *testing.T) { takenAlike[ChatCompletion](t, takenCompletions) }

// takenAlike checks that T's decoder takes each of raws, as encoding/json decodes it.
func takenAlike[T any, P interface {
	*T
	fastDecoder
}](t *testing.T, raws []string) {
	t.Helper()
	for _, raw := range raws {
		if !decodedAlike[T, P](t, raw) {
			t.Errorf("the decoder declined a usual answer (encoding/json decodes it, slowly):\n%s", raw)
		}
	}
}

func TestChatDecodeLeavesTheRestToEncodingJSON(t *testing.T) {
	declinedAlike[ChatCompletion](t, declinedCompletions)
}

// declinedAlike checks that T's decoder declines each of raws and that decode gives
// encoding/json's value (Raw set) or an error that carries encoding/json's.
func declinedAlike[T any, P interface {
	*T
	fastDecoder
}](t *testing.T, raws []string) {
	t.Helper()
	for _, raw := range raws {
		if decodedAlike[T, P](t, raw) {
			t.Errorf("the decoder took what it should leave to encoding/json:\n%s", raw)
		}
		got, gotErr := decode[T]("answer", []byte(raw), nil)
		want := new(T)
		wantErr := json.Unmarshal([]byte(raw), want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("decode and encoding/json disagree on %s: %v against %v", raw, gotErr, wantErr)
		}
		if gotErr != nil {
			if !strings.Contains(gotErr.Error(), wantErr.Error()) {
				t.Fatalf("decode's error %q does not carry encoding/json's %q", gotErr, wantErr)
			}
			continue
		}
		if r, ok := any(want).(interface{ setRaw(json.RawMessage) }); ok {
			r.setRaw([]byte(raw))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decode differs from encoding/json for %s:\n got %#v\nwant %#v", raw, got, want)
		}
	}
}

func TestChunkDecodeTakesUsualEvents(t *testing.T) {
	for _, raw := range []string{
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}],"reasoning_content":"r"}}],"system_fingerprint":"skipped here"}`,
		`{"choices":[],"usage":null}`,
	} {
		if !decodedAlike[ChatCompletionChunk](t, raw) {
			t.Errorf("the chunk decoder declined a usual event:\n%s", raw)
		}
	}
	for _, raw := range []string{`{"choices":[{"delta":{"content":null,"Content":"x"}}]}`, `{"choices":[{"finish_reason":1}]}`} {
		if decodedAlike[ChatCompletionChunk](t, raw) {
			t.Errorf("the chunk decoder took what it should leave to encoding/json:\n%s", raw)
		}
	}
}

// Mutations of the usual answers (bytes changed, dropped, doubled, cut): whatever the
// decoder takes, it decodes as encoding/json does. Seeded, so a failure repeats.
func TestChatDecodeMutatedAnswers(t *testing.T) {
	taken := 0
	mutations(append(append([]string{}, takenCompletions...), declinedCompletions...),
		`{}[]:,"\ 0123456789.eE+-tfnulrsaxIDC`+"\t\n\x00\x7f\xc3\xa9\xff", 40000, func(b string) {
			if decodedAlike[ChatCompletion](t, b) {
				taken++
			}
			decodedAlike[ChatCompletionChunk](t, b)
		})
	if taken == 0 {
		t.Fatal("no mutation was taken by the decoder: the test checks nothing")
	}
}

// mutations gives each n mutations of seeds (one to three bytes changed to one of
// alphabet, dropped or doubled, or the text cut), from a fixed seed.
func mutations(seeds []string, alphabet string, n int, each func(string)) {
	rng := rand.New(rand.NewSource(41))
	for ; n > 0; n-- {
		b := []byte(seeds[rng.Intn(len(seeds))])
		for k := 1 + rng.Intn(3); k > 0 && len(b) > 0; k-- {
			at := rng.Intn(len(b))
			switch rng.Intn(4) {
			case 0:
				b[at] = alphabet[rng.Intn(len(alphabet))]
			case 1:
				b = append(b[:at], b[at+1:]...)
			case 2:
				b = append(b[:at], append([]byte{b[at]}, b[at:]...)...)
			case 3:
				b = b[:at]
			}
		}
		each(string(b))
	}
}

// FuzzAnswerDecode: whatever a hand-written decoder takes, it decodes as encoding/json
// does (make fuzz runs it as go_answer_decode).
func FuzzAnswerDecode(f *testing.F) {
	for _, seeds := range [][]string{takenCompletions, declinedCompletions, takenEmbeddings, declinedEmbeddings,
		takenResponses, declinedResponses} {
		for _, raw := range seeds {
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		decodedAlike[ChatCompletion](t, raw)
		decodedAlike[ChatCompletionChunk](t, raw)
		decodedAlike[EmbeddingList](t, raw)
		decodedAlike[Response](t, raw)
	})
}

// plainRun against its definition: every byte value at every place of a word and of the
// tail, from every start.
func TestPlainRunFindsTheFirstByteToLookAt(t *testing.T) {
	for c := 0; c < 256; c++ {
		for at := 0; at < 19; at++ {
			b := []byte(strings.Repeat("a", 19))
			b[at] = byte(c)
			for from := 0; from <= at; from++ {
				want := len(b)
				if stringByte[c] != plainByte {
					want = at
				}
				if got := plainRun(b, from); got != want {
					t.Fatalf("plainRun(%q, %d) = %d, want %d", b, from, got, want)
				}
			}
		}
	}
}

// The decoders against encoding/json on the mock's usual completion:
// go test -run X -bench Decode -benchmem
func BenchmarkChatDecode(b *testing.B) { benchDecode[ChatCompletion](b, takenCompletions[0]) }

// benchDecode times T's decoder and encoding/json on raw.
func benchDecode[T any, P interface {
	*T
	fastDecoder
}](b *testing.B, raw string) {
	text := []byte(raw)
	b.Run("hand-written", func(b *testing.B) {
		for range b.N {
			if !P(new(T)).decodeFast(text) {
				b.Fatal("declined")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for range b.N {
			if err := json.Unmarshal(text, new(T)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Through gw-mock: an answer gw's C side accepts (a JSON object with its choices) but
// whose choices are no list. The decoder declines it, encoding/json refuses it, and the
// call fails as a decode error that carries the body.
func TestChatAnswerOfTheWrongShapeIsADecodeError(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	body := `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":{"index":0}}`
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 200, "body": body})
	_, err := c.Chat(bg(), chatReq("q"))
	e := asError(t, err)
	if e.Status != StatusDecode || !errors.Is(err, ErrDecode) || !strings.Contains(e.Message, "answer does not decode") ||
		string(e.Body) != body {
		t.Fatalf("status %d, message %q, body %q", e.Status, e.Message, e.Body)
	}
	// An escaped answer through the same mock decodes by hand, text intact.
	escaped := `{"id":"c2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":"line one\nline \"two\" \u00e9 \ud83c\udf89 end"},"finish_reason":"stop"}]}`
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 200, "body": escaped})
	res, err := c.Chat(bg(), chatReq("q"))
	if err != nil || res.Text() != "line one\nline \"two\" é 🎉 end" {
		t.Fatalf("text %q, err %v", res.Text(), err)
	}
}
