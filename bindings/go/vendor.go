package gw

import (
	"context"
	"encoding/json"
)

// The vendor operations take any JSON-encodable request (a struct, a map, or
// json.RawMessage) and return the answer as JSON: most of their bodies are not documented.
// gw.As decodes one into a type, e.g. gw.As[gw.VendorHTask](c.VendorHImageToVideo(ctx, req)).

// VendorKText2Video sends POST /vendorK/v1/videos/text2video; poll with VideoVendorK.
func (c *Client) VendorKText2Video(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorKText2Video, req, opts)
}

// VendorKImage2Video sends POST /vendorK/v1/videos/image2video; poll with VideoVendorK.
func (c *Client) VendorKImage2Video(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorKImage2Video, req, opts)
}

// VendorKMultiImage2Video sends POST /vendorK/v1/videos/multi-image2video; poll with VideoVendorK.
func (c *Client) VendorKMultiImage2Video(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorKMulti, req, opts)
}

// VendorKEffects sends POST /vendorK/video/effects: {"video": URL, "effect"}.
func (c *Client) VendorKEffects(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorKEffects, req, opts)
}

// VendorKExtend sends POST /vendorK/video/extend: {"video_id"}.
func (c *Client) VendorKExtend(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorKExtend, req, opts)
}

// VendorHImageToVideo sends POST /vendorH/image-to-video; a body code other than 0 is a
// *Error with StatusVendor. Decode the answer with gw.As[gw.VendorHTask].
func (c *Client) VendorHImageToVideo(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorHImage2Video, req, opts)
}

// VendorMImagine sends POST /vendorM/submit/imagine; a body code other than 1 is a *Error
// with StatusVendor. Decode the answer with gw.As[gw.VendorMTask].
func (c *Client) VendorMImagine(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorMImagine, req, opts)
}

// VendorIDescribe sends POST /vendorI/describe: {"image": URL} -> {"descriptions": [...]}.
func (c *Client) VendorIDescribe(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorIDescribe, req, opts)
}

// VendorIGenerate sends POST /vendorI/generate; decode with gw.As[gw.ImageResult].
func (c *Client) VendorIGenerate(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorIGenerate, req, opts)
}

// VendorITextToImage sends POST /vendorI/text-to-image.
func (c *Client) VendorITextToImage(ctx context.Context, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVendorITextToImage, req, opts)
}

// VendorFEdit sends POST /vendorF/{modelSlug}/edit: {"image": URL, "prompt"}. The slug
// may span segments ("org/model"); empty, "." and ".." segments are refused.
func (c *Client) VendorFEdit(ctx context.Context, modelSlug string, req any, opts ...CallOption) (json.RawMessage, error) {
	return c.runID(ctx, opVendorFEdit, "modelSlug", modelSlug, req, opts)
}

// VendorHTask is the answer of VendorHImageToVideo.
type VendorHTask struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		TaskID    string `json:"task_id"`
		Status    string `json:"status"`
		CreatedAt string `json:"created_at"` // ISO 8601
	} `json:"data"`
}

// VendorMTask is the answer of VendorMImagine: Result is the task id.
type VendorMTask struct {
	Code        int            `json:"code"`
	Description string         `json:"description"`
	Result      string         `json:"result"`
	Properties  map[string]any `json:"properties"`
}

// VendorIDescription is the answer of VendorIDescribe.
type VendorIDescription struct {
	Descriptions []string `json:"descriptions"`
}
