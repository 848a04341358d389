package gw

import (
	"context"
	"encoding/json"
	"strings"
)

// GenerateContentRequest is the native-format body of
// POST /v1beta/models/{model}:generateContent (the key travels as ?key=, never shown).
type GenerateContentRequest struct {
	Contents         []NativeContent   `json:"contents"`
	Tools            []NativeTool      `json:"tools,omitempty"`
	GenerationConfig *GenerationConfig `json:"generationConfig,omitempty"`
	Extra            Extra             `json:"-"`
}

func (r GenerateContentRequest) MarshalJSON() ([]byte, error) {
	type plain GenerateContentRequest
	return marshalWithExtra(plain(r), r.Extra)
}

// NativeContent is one turn: Role "user", "model" or "function".
type NativeContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []NativePart `json:"parts"`
}

// NativePart holds one of: Text, InlineData (Base64), FileData (a file URI),
// FunctionCall (in answers), FunctionResponse (a function's result sent back).
type NativePart struct {
	Text             string            `json:"text,omitempty"`
	InlineData       *InlineData       `json:"inline_data,omitempty"`
	FileData         *FileData         `json:"file_data,omitempty"`
	FunctionCall     *NativeCall       `json:"functionCall,omitempty"`
	FunctionResponse *NativeCallResult `json:"functionResponse,omitempty"`
}

type InlineData struct {
	MimeType string `json:"mime_type"`
	Data     string `json:"data"` // Base64
}

type FileData struct {
	MimeType string `json:"mime_type"`
	FileURI  string `json:"file_uri"`
}

// NativeCall is the model asking to run a function with Args.
type NativeCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// NativeCallResult carries a function's result back.
type NativeCallResult struct {
	Name     string `json:"name"`
	Response any    `json:"response"`
}

// NativeTool declares functions the model may call.
type NativeTool struct {
	FunctionDeclarations []FunctionDef `json:"functionDeclarations"`
}

// GenerationConfig: Temperature 0 to 2, TopP 0 to 1.
type GenerationConfig struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"topP,omitempty"`
}

// GenerateContentResponse is the native answer.
type GenerateContentResponse struct {
	Candidates []Candidate     `json:"candidates"`
	Raw        json.RawMessage `json:"-"`
}

func (r *GenerateContentResponse) setRaw(raw json.RawMessage) { r.Raw = raw }

// Candidate is one answer; FinishReason e.g. "STOP".
type Candidate struct {
	Content      NativeContent `json:"content"`
	FinishReason string        `json:"finishReason"`
}

// Text joins the text parts of the first candidate.
func (r *GenerateContentResponse) Text() string {
	if len(r.Candidates) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range r.Candidates[0].Content.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// FunctionCalls lists the function calls of the first candidate.
func (r *GenerateContentResponse) FunctionCalls() []NativeCall {
	if len(r.Candidates) == 0 {
		return nil
	}
	var calls []NativeCall
	for _, p := range r.Candidates[0].Content.Parts {
		if p.FunctionCall != nil {
			calls = append(calls, *p.FunctionCall)
		}
	}
	return calls
}

// GenerateContent sends the native-format call for model.
func (c *Client) GenerateContent(ctx context.Context, model string, req GenerateContentRequest, opts ...CallOption) (*GenerateContentResponse, error) {
	raw, err := c.runID(ctx, opGenerateContent, "model", model, req, opts)
	return decode[GenerateContentResponse](opGenerateContent.name, raw, err)
}

// GenerateContentRaw is GenerateContent with JSON in and out.
func (c *Client) GenerateContentRaw(ctx context.Context, model string, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runID(ctx, opGenerateContent, "model", model, req, opts)
}
