package gw

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"runtime"
)

// ImageRequest is the body of POST /v1/images/generations.
type ImageRequest struct {
	Model          string   `json:"model"`
	Prompt         string   `json:"prompt"`
	N              int      `json:"n,omitempty"`
	Size           string   `json:"size,omitempty"`            // "<width>x<height>" or "auto"
	ResponseFormat string   `json:"response_format,omitempty"` // url or b64_json
	Seed           *int64   `json:"seed,omitempty"`            // -1 to 2147483647
	GuidanceScale  *float64 `json:"guidance_scale,omitempty"`  // 1 to 10
	Watermark      *bool    `json:"watermark,omitempty"`
	Extra          Extra    `json:"-"`
}

func (r ImageRequest) MarshalJSON() ([]byte, error) {
	type plain ImageRequest
	return marshalWithExtra(plain(r), r.Extra)
}

// ImageEditRequest is an image edit. For ImageEdit (the JSON form) Image and Mask are
// URLs; for ImageEditUpload they stay empty and the files are given separately.
type ImageEditRequest struct {
	Model  string `json:"model"`
	Prompt string `json:"prompt"`
	Image  string `json:"image,omitempty"`
	Mask   string `json:"mask,omitempty"`
	N      int    `json:"n,omitempty"`
	Size   string `json:"size,omitempty"`
	Extra  Extra  `json:"-"`
}

func (r ImageEditRequest) MarshalJSON() ([]byte, error) {
	type plain ImageEditRequest
	return marshalWithExtra(plain(r), r.Extra)
}

// ImageResult is the answer of image generation and edits (and vendor I generate).
type ImageResult struct {
	Created int64   `json:"created"`
	Data    []Image `json:"data"`
	Model   string  `json:"model,omitempty"`
	Usage   *struct {
		GeneratedImages int `json:"generated_images"`
		OutputTokens    int `json:"output_tokens"`
		TotalTokens     int `json:"total_tokens"`
	} `json:"usage,omitempty"`
	Raw json.RawMessage `json:"-"`
}

func (r *ImageResult) setRaw(raw json.RawMessage) { r.Raw = raw }

// Image is one generated image.
type Image struct {
	URL           string `json:"url,omitempty"`
	B64JSON       string `json:"b64_json,omitempty"`
	RevisedPrompt string `json:"revised_prompt,omitempty"`
	Seed          *int64 `json:"seed,omitempty"`
}

// File is an upload: Data, or else everything Reader gives. Name defaults to
// "image.png" / "mask.png", ContentType to "application/octet-stream".
type File struct {
	Name        string
	ContentType string
	Data        []byte
	Reader      io.Reader
}

// ImageGenerate sends POST /v1/images/generations.
func (c *Client) ImageGenerate(ctx context.Context, req ImageRequest, opts ...CallOption) (*ImageResult, error) {
	raw, err := c.runJSON(ctx, opImageGenerate, req, opts)
	return decode[ImageResult](opImageGenerate.name, raw, err)
}

// ImageGenerateRaw is ImageGenerate with JSON in and out.
func (c *Client) ImageGenerateRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opImageGenerate, req, opts)
}

// ImageEdit sends POST /v1/images/edits in its JSON form (image and mask as URLs).
func (c *Client) ImageEdit(ctx context.Context, req ImageEditRequest, opts ...CallOption) (*ImageResult, error) {
	raw, err := c.runJSON(ctx, opImageEdit, req, opts)
	return decode[ImageResult](opImageEdit.name, raw, err)
}

// ImageEditRaw is ImageEdit with JSON in and out.
func (c *Client) ImageEditRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opImageEdit, req, opts)
}

// ImageEditUpload sends POST /v1/images/edits as multipart/form-data: req's fields as
// text parts, then image and, when not nil, mask as file parts.
func (c *Client) ImageEditUpload(ctx context.Context, req ImageEditRequest, image File, mask *File, opts ...CallOption) (*ImageResult, error) {
	raw, err := c.upload(ctx, req, image, mask, opts)
	return decode[ImageResult](uploadOp, raw, err)
}

// ImageEditUploadRaw is ImageEditUpload with the form fields as a JSON object.
func (c *Client) ImageEditUploadRaw(ctx context.Context, req json.RawMessage, image File, mask *File, opts ...CallOption) (json.RawMessage, error) {
	return c.upload(ctx, req, image, mask, opts)
}

const uploadOp = "image edit upload"

// bytes is the file's content, read from Reader when Data is nil.
func (f *File) bytes(which string) ([]byte, error) {
	if f.Data != nil || f.Reader == nil {
		return f.Data, nil
	}
	b, err := io.ReadAll(f.Reader)
	if err != nil {
		return nil, argError(uploadOp, "reading %s: %v", which, err)
	}
	return b, nil
}

// cText is an optional C string for gw_file; nil for "".
func cText(which, field, s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	if bytes.IndexByte([]byte(s), 0) >= 0 {
		return nil, argError(uploadOp, "%s.%s contains a NUL byte", which, field)
	}
	return nulTerminated(s), nil
}

// toC makes the gw_file for f (freed with freeFile); the bytes stay in Go memory,
// pinned for the call.
func (f *File) toC(which string, pin *runtime.Pinner) (*cFile, error) {
	data, err := f.bytes(which)
	if err != nil {
		return nil, err
	}
	name, err := cText(which, "Name", f.Name)
	if err != nil {
		return nil, err
	}
	ctype, err := cText(which, "ContentType", f.ContentType)
	if err != nil {
		return nil, err
	}
	cf := newFile(data, name, ctype, pin)
	if cf == nil {
		return nil, argError(uploadOp, "%s: out of memory", which)
	}
	return cf, nil
}

func (c *Client) upload(ctx context.Context, req any, image File, mask *File, opts []CallOption) (json.RawMessage, error) {
	body, err := requestBody(uploadOp, req)
	if err != nil {
		return nil, err
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	cImage, err := image.toC("image", &pin)
	if err != nil {
		return nil, err
	}
	defer freeFile(cImage)
	var cMask *cFile
	if mask != nil {
		if cMask, err = mask.toC("mask", &pin); err != nil {
			return nil, err
		}
		defer freeFile(cMask)
	}
	k, err := c.begin(ctx, uploadOp, opts)
	if err != nil {
		return nil, err
	}
	if c.st.hc != nil {
		// The exchange copies the form (files included): the pins may go once it exists.
		ex, status, out := exchangeUpload(k.h, body, cImage, cMask)
		runtime.KeepAlive(cImage)
		runtime.KeepAlive(cMask)
		if ex == nil {
			return k.finish(failedStatus(status), out)
		}
		return c.drive(k, newDriver(k, c.st.hc, ex, false))
	}
	status, out := callUpload(k.h, body, cImage, cMask)
	runtime.KeepAlive(c)
	return k.finish(status, out)
}
