package gw

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestVendorOperations(t *testing.T) {
	c := newClient(t)
	for name, call := range map[string]func() (json.RawMessage, error){
		"K image2video": func() (json.RawMessage, error) {
			return c.VendorKImage2Video(bg(), map[string]any{"image": "https://i.example/a.png"})
		},
		"K multi": func() (json.RawMessage, error) {
			return c.VendorKMultiImage2Video(bg(), map[string]any{"image_list": []any{map[string]string{"image": "https://i.example/a.png"}}})
		},
		"K effects": func() (json.RawMessage, error) {
			return c.VendorKEffects(bg(), map[string]any{"video": "https://v.example/a.mp4", "effect": "zoom"})
		},
		"K extend": func() (json.RawMessage, error) { return c.VendorKExtend(bg(), json.RawMessage(`{"video_id":"k_1"}`)) },
		"I text-to-image": func() (json.RawMessage, error) {
			return c.VendorITextToImage(bg(), map[string]any{"prompt": "a boat"})
		},
		"F edit": func() (json.RawMessage, error) {
			return c.VendorFEdit(bg(), "org/model", map[string]any{"image": "https://i.example/a.png", "prompt": "blue"})
		},
	} {
		out, err := call()
		if err != nil || !json.Valid(out) {
			t.Errorf("%s: %s %v", name, out, err)
		}
	}
	if _, err := c.VendorFEdit(bg(), "org/model", map[string]any{"image": "https://i.example/a.png", "prompt": "blue"}); err != nil {
		t.Fatal(err)
	}
	if last := lastRequest(t); last.Path != "/vendorF/org/model/edit" {
		t.Fatalf("vendor F path %q", last.Path)
	}

	h, err := As[VendorHTask](c.VendorHImageToVideo(bg(), map[string]any{"image_url": "https://i.example/a.png", "prompt": "move", "aspect_ratio": "16:9"}))
	if err != nil || h.Code != 0 || h.Data.TaskID == "" || h.Data.Status != "pending" {
		t.Fatalf("%+v %v", h, err)
	}
	m, err := As[VendorMTask](c.VendorMImagine(bg(), map[string]any{"prompt": "a castle", "botType": "MID_JOURNEY"}))
	if err != nil || m.Code != 1 || m.Result == "" {
		t.Fatalf("%+v %v", m, err)
	}
	d, err := As[VendorIDescription](c.VendorIDescribe(bg(), map[string]any{"image": "https://i.example/a.png"}))
	if err != nil || len(d.Descriptions) == 0 {
		t.Fatalf("%+v %v", d, err)
	}
	g, err := As[ImageResult](c.VendorIGenerate(bg(), map[string]any{"prompt": "a tree", "aspect_ratio": "4:3"}))
	if err != nil || len(g.Data) == 0 || g.Data[0].Seed == nil || !strings.Contains(string(g.Raw), "seed") {
		t.Fatalf("%+v %v", g, err)
	}
}

// Vendor bodies that report failure in their own code are StatusVendor with the body.
func TestVendorFailures(t *testing.T) {
	c := newClient(t)
	_, err := c.VendorHImageToVideo(bg(), map[string]any{"image_url": "https://i.example/a.png", "prompt": "vendor-fail"})
	e := asError(t, err)
	if !errors.Is(err, ErrVendor) || e.Code != "1001" || e.Message != "insufficient quota" || !strings.Contains(string(e.Body), "1001") {
		t.Fatalf("vendor H: %+v", e)
	}
	_, err = c.VendorMImagine(bg(), map[string]any{"prompt": "vendor-fail", "botType": "MID_JOURNEY"})
	e = asError(t, err)
	if !errors.Is(err, ErrVendor) || e.Code != "4" || e.Message != "banned prompt" {
		t.Fatalf("vendor M: %+v", e)
	}
	_, err = c.VendorFEdit(bg(), "../x", map[string]any{"image": "u", "prompt": "p"})
	if e := asError(t, err); e.Status != StatusInvalidArgument {
		t.Fatalf("vendor F traversal: %+v", e)
	}
	_, err = As[VendorHTask](nil, nil)
	if e := asError(t, err); e.Status != StatusDecode {
		t.Fatalf("As on nothing: %+v", e)
	}
}

func TestGenerateContent(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	req := GenerateContentRequest{
		Contents:         []NativeContent{{Role: "user", Parts: []NativePart{{Text: "What is the weather in Oslo?"}}}},
		Tools:            []NativeTool{{FunctionDeclarations: []FunctionDef{{Name: "get_weather", Description: "weather", Parameters: map[string]any{"type": "object"}}}}},
		GenerationConfig: &GenerationConfig{Temperature: Ptr(0.5)},
	}
	res, err := c.GenerateContent(bg(), "gemini-x", req)
	if err != nil {
		t.Fatal(err)
	}
	calls := res.FunctionCalls()
	if len(calls) != 1 || calls[0].Name != "get_weather" {
		t.Fatalf("answer %s", res.Raw)
	}
	sent := lastRequest(t)
	if sent.Path != "/v1beta/models/gemini-x:generateContent" || sent.Query == nil || !strings.Contains(*sent.Query, "key=") || sent.header("authorization") != "" {
		t.Fatalf("request %s ?%v auth=%q", sent.Path, sent.Query, sent.header("authorization"))
	}
	// Send the function's result back: the model answers with text.
	req.Contents = append(req.Contents,
		NativeContent{Role: "model", Parts: []NativePart{{FunctionCall: &calls[0]}}},
		NativeContent{Role: "function", Parts: []NativePart{{FunctionResponse: &NativeCallResult{Name: "get_weather", Response: map[string]any{"temp": 12}}}}})
	res, err = c.GenerateContent(bg(), "gemini-x", req)
	if err != nil || res.Text() == "" || res.Candidates[0].FinishReason != "STOP" {
		t.Fatalf("%s %v", res.Raw, err)
	}
	raw, err := c.GenerateContentRaw(bg(), "gemini-x", json.RawMessage(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	if err != nil || !strings.Contains(string(raw), "candidates") {
		t.Fatalf("%s %v", raw, err)
	}
}

func TestResponses(t *testing.T) {
	c := newClient(t)
	res, err := c.Responses(bg(), ResponsesRequest{Model: "m", Input: TextInput("hello responses"), Tools: []ResponsesTool{WebSearchTool()}, Reasoning: &Reasoning{Effort: "low"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Object != "response" || res.Status != "completed" || res.OutputText() == "" || res.Usage == nil {
		t.Fatalf("%s", res.Raw)
	}
	items, err := c.Responses(bg(), ResponsesRequest{Model: "m", Input: ItemsInput(InputItem{Role: "user", Content: "from items"})})
	if err != nil || !strings.Contains(items.OutputText(), "from items") {
		t.Fatalf("%+v %v", items, err)
	}
	raw, err := c.ResponsesRaw(bg(), json.RawMessage(`{"model":"m","input":"x"}`))
	if err != nil || !strings.Contains(string(raw), `"response"`) {
		t.Fatalf("%s %v", raw, err)
	}
}

func TestDo(t *testing.T) {
	resetMock(t)
	c := newClient(t)
	out, err := c.Do(bg(), "POST", "/v1/chat/completions", chatReq("via Do"))
	if err != nil || !strings.Contains(string(out), "Echo: via Do") {
		t.Fatalf("%s %v", out, err)
	}
	task, err := c.VideoCreate(bg(), VideoRequest{Model: "v", Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	out, err = c.Do(bg(), "GET", "/v1/video/generations/"+task.ID, nil)
	if err != nil || !strings.Contains(string(out), task.ID) {
		t.Fatalf("%s %v", out, err)
	}
	if r := lastRequest(t); r.Method != "GET" || r.Body != "" {
		t.Fatalf("GET sent %+v", r)
	}
	// A documented path gets its checks: a broken limit is refused before sending.
	_, err = c.Do(bg(), "POST", "/v1/chat/completions", map[string]any{"model": "m", "messages": []any{}})
	if e := asError(t, err); e.Status != StatusInvalidArgument || e.Param != "messages" {
		t.Fatalf("error %+v", e)
	}
	_, err = c.Do(bg(), "DELETE", "/v1/videos/x", nil)
	if e := asError(t, err); e.Status != StatusInvalidArgument {
		t.Fatalf("error %+v", e)
	}
}
