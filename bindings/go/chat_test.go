package gw

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestChatTyped(t *testing.T) {
	c := newClient(t)
	req := chatReq("Hello there")
	req.Temperature = Ptr(0.0) // 0 is sent, not dropped
	res, err := c.Chat(bg(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); got != "Echo: Hello there" {
		t.Fatalf("text %q", got)
	}
	if res.Object != "chat.completion" || res.Choices[0].FinishReason != "stop" || res.Choices[0].Message.Role != "assistant" {
		t.Fatalf("completion %+v", res)
	}
	if res.Usage == nil || res.Usage.PromptTokens != 2 || res.Usage.CompletionTokens != 3 || res.Usage.TotalTokens != 5 {
		t.Fatalf("usage %+v", res.Usage)
	}
	if !json.Valid(res.Raw) || !strings.Contains(string(res.Raw), `"chat.completion"`) {
		t.Fatalf("Raw %s", res.Raw)
	}
	sent := lastRequest(t)
	if !strings.Contains(string(sent.JSON), `"temperature":0`) {
		t.Fatalf("temperature 0 not sent: %s", sent.JSON)
	}
}

func TestChatRaw(t *testing.T) {
	c := newClient(t)
	out, err := c.ChatRaw(bg(), json.RawMessage(`{"model":"m","messages":[{"role":"user","content":"raw hi"}],"max_tokens":2}`))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.Choices[0].Message.Content != "Echo: raw" || v.Choices[0].FinishReason != "length" {
		t.Fatalf("answer %s", out)
	}
}

func TestChatMultimodalPartsAndExtra(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	req := ChatRequest{
		Model: "vision",
		Messages: []Message{
			SystemMessage("be brief"),
			UserParts(TextPart("what is in"), ImagePart("https://img.example/a.png"), VideoPart("https://v.example/a.mp4", 2)),
		},
		ReasoningEffort: "low",
		Extra:           Extra{"user": "u-42", "model": "ignored: modelled field wins"},
	}
	req.Messages[1].Extra = Extra{"name": "ignored-name-wins", "x_note": "kept"}
	req.Messages[1].Name = "alice"
	res, err := c.Chat(bg(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); got != "Echo: what is in [1 image] [1 video]" {
		t.Fatalf("text %q", got)
	}
	if res.Choices[0].Message.ReasoningContent == "" || res.Usage.CompletionTokensDetails == nil {
		t.Fatalf("reasoning missing: %s", res.Raw)
	}
	var sent struct {
		Model    string
		User     string
		Messages []map[string]any
	}
	if err := json.Unmarshal(lastRequest(t).JSON, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Model != "vision" || sent.User != "u-42" {
		t.Fatalf("sent %+v", sent)
	}
	m := sent.Messages[1]
	if m["name"] != "alice" || m["x_note"] != "kept" {
		t.Fatalf("message fields %v", m)
	}
	parts := m["content"].([]any)
	video := parts[2].(map[string]any)["video_url"].(map[string]any)
	if video["fps"] != 2.0 || video["url"] != "https://v.example/a.mp4" {
		t.Fatalf("video part %v", video)
	}
}

// A tool-calling answer (served by a status fault with that body) decodes into ToolCalls,
// and the tool round trip encodes as the API wants (null content with tool_calls).
func TestChatToolCalls(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	body := `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,
		"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
		"function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]},"finish_reason":"tool_calls"}]}`
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 200, "body": body})
	weather := FunctionTool("weather", "current weather", map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
	})
	req := chatReq("weather in Oslo?")
	req.Tools = []Tool{weather}
	req.ToolChoice = "auto"
	res, err := c.Chat(bg(), req)
	if err != nil {
		t.Fatal(err)
	}
	msg := res.Choices[0].Message
	if res.Choices[0].FinishReason != "tool_calls" || len(msg.ToolCalls) != 1 {
		t.Fatalf("choice %+v", res.Choices[0])
	}
	call := msg.ToolCalls[0]
	if call.ID != "call_1" || call.Function.Name != "weather" || call.Function.Arguments != `{"city":"Oslo"}` {
		t.Fatalf("tool call %+v", call)
	}
	var first struct {
		Tools []struct {
			Type     string
			Function struct{ Name, Description string }
		}
		ToolChoice string `json:"tool_choice"`
	}
	if err := json.Unmarshal(lastRequest(t).JSON, &first); err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != 1 || first.Tools[0].Type != "function" || first.Tools[0].Function.Name != "weather" || first.ToolChoice != "auto" {
		t.Fatalf("tools sent: %+v", first)
	}
	// Second turn: the assistant's call and the tool's answer go back; the mock echoes.
	req.Messages = append(req.Messages, msg, ToolMessage(call.ID, "12 degrees"), UserMessage("thanks"))
	res, err = c.Chat(bg(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != "Echo: thanks" {
		t.Fatalf("text %q", res.Text())
	}
	var sent struct{ Messages []map[string]any }
	if err := json.Unmarshal(lastRequest(t).JSON, &sent); err != nil {
		t.Fatal(err)
	}
	if c, ok := sent.Messages[1]["content"]; !ok || c != nil {
		t.Fatalf("assistant tool-call turn content = %v (want null)", c)
	}
	if sent.Messages[2]["tool_call_id"] != "call_1" || sent.Messages[2]["role"] != "tool" {
		t.Fatalf("tool turn %v", sent.Messages[2])
	}
}

// gw checks the documented limits before sending: nothing reaches the gateway.
func TestChatValidationBeforeSending(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	req := chatReq("x")
	req.Temperature = Ptr(9.0)
	_, err := c.Chat(bg(), req)
	e := asError(t, err)
	if e.Status != StatusInvalidArgument || !errors.Is(err, ErrInvalidArgument) || e.Param != "temperature" {
		t.Fatalf("error %+v", e)
	}
	if !strings.Contains(e.Message, "temperature") || e.Meta != nil {
		t.Fatalf("error %+v", e)
	}
	if n := len(requests(t)); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	// WithValidation(false) sends it anyway; the mock then refuses it itself (400).
	_, err = c.Chat(bg(), req, WithValidation(false))
	e = asError(t, err)
	if e.Status != 400 || !errors.Is(err, ErrBadRequest) || e.Meta == nil || e.Meta.Status != 400 {
		t.Fatalf("error %+v", e)
	}
}

func TestChatRequestEncodingErrors(t *testing.T) {
	c := newClient(t)
	_, err := c.ChatRaw(bg(), json.RawMessage("{\"model\":\"m\x00\"}"))
	if e := asError(t, err); e.Status != StatusInvalidArgument || !strings.Contains(e.Message, "NUL") {
		t.Fatalf("error %+v", e)
	}
	_, err = c.ChatRaw(bg(), json.RawMessage(`{not json`))
	if e := asError(t, err); e.Status != StatusInvalidArgument {
		t.Fatalf("error %+v", e)
	}
	req := chatReq("x")
	req.Extra = Extra{"bad": func() {}}
	_, err = c.Chat(bg(), req)
	if e := asError(t, err); e.Status != StatusInvalidArgument || !strings.Contains(e.Message, "bad") {
		t.Fatalf("error %+v", e)
	}
}

// The typed OpenAI request fields reach the gateway as the format names them, Extra
// still merges, and logprobs in the answer decode.
func TestChatTypedFields(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}
	req := chatReq("fields")
	req.ResponseFormat = JSONSchemaFormat("place", schema, true)
	req.Seed = Ptr[int64](42)
	req.N = 2
	req.Logprobs = true
	req.TopLogprobs = Ptr(3)
	req.ParallelToolCalls = Ptr(false)
	req.User = "u-42"
	req.Metadata = map[string]string{"tenant": "t1"}
	req.Extra = Extra{"service_tier": "flex", "seed": 7} // a modelled field wins
	if _, err := c.Chat(bg(), req); err != nil {
		t.Fatal(err)
	}
	var sent map[string]any
	if err := json.Unmarshal(lastRequest(t).JSON, &sent); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": "place", "schema": schema, "strict": true}},
		"seed": 42.0, "n": 2.0, "logprobs": true, "top_logprobs": 3.0, "parallel_tool_calls": false,
		"user": "u-42", "metadata": map[string]any{"tenant": "t1"}, "service_tier": "flex",
	}
	for k, v := range want {
		if !reflect.DeepEqual(sent[k], jsonRound(t, v)) {
			t.Errorf("%s: sent %#v, want %#v", k, sent[k], v)
		}
	}
	// Unset fields are not sent at all.
	if _, err := c.Chat(bg(), chatReq("plain")); err != nil {
		t.Fatal(err)
	}
	sent = nil
	json.Unmarshal(lastRequest(t).JSON, &sent)
	for _, k := range []string{"response_format", "seed", "n", "logprobs", "top_logprobs", "parallel_tool_calls", "user", "metadata"} {
		if _, ok := sent[k]; ok {
			t.Errorf("%s sent though unset", k)
		}
	}
	for _, f := range []*ResponseFormat{TextFormat(), JSONObjectFormat()} {
		r := chatReq("fmt")
		r.ResponseFormat = f
		if _, err := c.Chat(bg(), r); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(lastRequest(t).JSON, &sent)
		if got := sent["response_format"].(map[string]any)["type"]; got != f.Type {
			t.Errorf("response_format type %v, want %s", got, f.Type)
		}
	}

	body := `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,
	  "message":{"role":"assistant","content":"Hi"},"finish_reason":"stop",
	  "logprobs":{"content":[{"token":"Hi","logprob":-0.25,"bytes":[72,105],
	    "top_logprobs":[{"token":"Hi","logprob":-0.25,"bytes":[72,105]},{"token":"Hey","logprob":-1.5}]}]}}]}`
	fault(t, map[string]any{"match": "/v1/chat/completions", "action": "status", "status": 200, "body": body})
	res, err := c.Chat(bg(), req)
	if err != nil {
		t.Fatal(err)
	}
	lp := res.Choices[0].Logprobs
	if lp == nil || len(lp.Content) != 1 {
		t.Fatalf("logprobs %+v", lp)
	}
	tok := lp.Content[0]
	if tok.Token != "Hi" || tok.Logprob != -0.25 || !reflect.DeepEqual(tok.Bytes, []int{72, 105}) ||
		len(tok.TopLogprobs) != 2 || tok.TopLogprobs[1].Token != "Hey" || tok.TopLogprobs[1].Logprob != -1.5 {
		t.Errorf("token %+v", tok)
	}
}

// jsonRound is v as encoding/json decodes it into any (numbers as float64).
func jsonRound(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

// Issue 39: the reasoning effort is a string the upstream extends (OpenAI added "max" in
// 2026-07), so a value gw does not know is sent, on chat and Responses, plain and
// streamed; a number in its place is still refused by gw's rules (checked via ChatRaw).
func TestReasoningEffortMaxReachesTheGateway(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	req := chatReq("think")
	req.ReasoningEffort = "max"
	if _, err := c.Chat(bg(), req); err != nil {
		t.Fatal(err)
	}
	if s := string(lastRequest(t).JSON); !strings.Contains(s, `"reasoning_effort":"max"`) {
		t.Fatalf("sent %s", s)
	}
	st, err := c.ChatStream(bg(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, err := range st.Text() {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s := string(lastRequest(t).JSON); !strings.Contains(s, `"reasoning_effort":"max"`) || !strings.Contains(s, `"stream":true`) {
		t.Fatalf("sent %s", s)
	}
	res, err := c.Responses(bg(), ResponsesRequest{Model: "m", Input: TextInput("hi"), Reasoning: &Reasoning{Effort: "max"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(lastRequest(t).JSON); !strings.Contains(s, `"reasoning":{"effort":"max"}`) {
		t.Fatalf("sent %s", s)
	}
	if !strings.Contains(string(res.Raw), `"effort":"max"`) {
		t.Fatalf("answer %s", res.Raw)
	}
	// An effort gw has never heard of is sent too: this gateway refuses it (400), not gw.
	req.ReasoningEffort = "ultra"
	_, err = c.Chat(bg(), req)
	if e := asError(t, err); e.Status != 400 || e.Meta == nil {
		t.Fatalf("error %+v", e)
	}
	if n := len(requests(t)); n != 4 {
		t.Fatalf("%d requests sent, want 4", n)
	}
	// The type is still checked: a number is refused before sending.
	_, err = c.ChatRaw(bg(), json.RawMessage(`{"model":"m","messages":[{"role":"user","content":"x"}],"reasoning_effort":5}`))
	if e := asError(t, err); e.Status != StatusInvalidArgument || e.Param != "reasoning_effort" {
		t.Fatalf("error %+v", e)
	}
	if n := len(requests(t)); n != 4 {
		t.Fatalf("%d requests sent, want 4", n)
	}
}
