package gw

import (
	"context"
	"encoding/json"
	"runtime"
)

// VideoFamily says which status endpoint polls a task.
type VideoFamily int

const (
	VideoUnified   VideoFamily = 0 // GET /v1/video/generations/{id}: tasks of VideoCreate and VideoGenerate
	VideoCharacter VideoFamily = 1 // GET /v1/videos/{id}: VideoCharacter and VideoRemix
	VideoVendorK   VideoFamily = 2 // GET /vendorK/v1/videos/{id}: the vendor K submits
	VideoVendorR   VideoFamily = 3 // GET /vendorR/task/{taskId}
)

func (f VideoFamily) String() string {
	switch f {
	case VideoUnified:
		return "unified"
	case VideoCharacter:
		return "character"
	case VideoVendorK:
		return "vendor K"
	case VideoVendorR:
		return "vendor R"
	}
	return "unknown"
}

// VideoRequest is the body of VideoCreate ({model, prompt, duration}) and VideoGenerate.
type VideoRequest struct {
	Model    string `json:"model"`
	Prompt   string `json:"prompt"`
	Duration int    `json:"duration,omitempty"` // seconds
	Extra    Extra  `json:"-"`
}

func (r VideoRequest) MarshalJSON() ([]byte, error) {
	type plain VideoRequest
	return marshalWithExtra(plain(r), r.Extra)
}

// CharacterVideoRequest is the body of POST /v1/videos.
type CharacterVideoRequest struct {
	Model       string `json:"model"`
	Prompt      string `json:"prompt"`
	CharacterID string `json:"character_id"`
	Size        string `json:"size,omitempty"`
	Extra       Extra  `json:"-"`
}

func (r CharacterVideoRequest) MarshalJSON() ([]byte, error) {
	type plain CharacterVideoRequest
	return marshalWithExtra(plain(r), r.Extra)
}

// RemixRequest is the body of POST /v1/videos/{id}/remix.
type RemixRequest struct {
	Prompt string `json:"prompt"`
	Size   string `json:"size,omitempty"`
	Extra  Extra  `json:"-"`
}

func (r RemixRequest) MarshalJSON() ([]byte, error) {
	type plain RemixRequest
	return marshalWithExtra(plain(r), r.Extra)
}

// VideoTask is a task handle or record of any family, read from where each family puts
// it: id or task_id (or data.task_id), status (or data.task_status), and the video URL
// (video_url, output[0], or data.task_result.videos[0].url). Raw holds the record.
type VideoTask struct {
	ID       string
	Status   string
	Progress float64 // as the gateway reports it: 0-100, or 0-1 for vendor R
	VideoURL string
	Model    string
	Raw      json.RawMessage
}

type taskShape struct {
	ID       string          `json:"id"`
	TaskID   string          `json:"task_id"`
	Status   string          `json:"status"`
	Progress float64         `json:"progress"`
	VideoURL string          `json:"video_url"`
	Output   json.RawMessage `json:"output"`
	Model    string          `json:"model"`
	Data     *struct {
		TaskID     string `json:"task_id"`
		TaskStatus string `json:"task_status"`
		Status     string `json:"status"`
		TaskResult *struct {
			Videos []struct {
				URL string `json:"url"`
			} `json:"videos"`
		} `json:"task_result"`
	} `json:"data"`
}

func (t *VideoTask) UnmarshalJSON(b []byte) error {
	var s taskShape
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = VideoTask{ID: s.ID, Status: s.Status, Progress: s.Progress, VideoURL: s.VideoURL, Model: s.Model,
		Raw: append(json.RawMessage(nil), b...)}
	if t.ID == "" {
		t.ID = s.TaskID
	}
	if d := s.Data; d != nil {
		if t.ID == "" {
			t.ID = d.TaskID
		}
		if t.Status == "" {
			t.Status = d.TaskStatus
		}
		if t.Status == "" {
			t.Status = d.Status
		}
		if r := d.TaskResult; t.VideoURL == "" && r != nil && len(r.Videos) > 0 {
			t.VideoURL = r.Videos[0].URL
		}
	}
	var outputs []string
	if t.VideoURL == "" && len(s.Output) > 0 && json.Unmarshal(s.Output, &outputs) == nil && len(outputs) > 0 {
		t.VideoURL = outputs[0]
	}
	return nil
}

func typed[T any](ctx context.Context, c *Client, op jsonOp, req any, opts []CallOption) (*T, error) {
	raw, err := c.runJSON(ctx, op, req, opts)
	return decode[T](op.name, raw, err)
}

// VideoCreate sends POST /v1/video/create; poll the task with VideoUnified.
func (c *Client) VideoCreate(ctx context.Context, req VideoRequest, opts ...CallOption) (*VideoTask, error) {
	return typed[VideoTask](ctx, c, opVideoCreate, req, opts)
}

// VideoCreateRaw is VideoCreate with JSON in and out.
func (c *Client) VideoCreateRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVideoCreate, req, opts)
}

// VideoGenerate sends POST /v1/video/generations (unified format); poll with VideoUnified.
func (c *Client) VideoGenerate(ctx context.Context, req VideoRequest, opts ...CallOption) (*VideoTask, error) {
	return typed[VideoTask](ctx, c, opVideoGenerate, req, opts)
}

// VideoGenerateRaw is VideoGenerate with JSON in and out.
func (c *Client) VideoGenerateRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVideoGenerate, req, opts)
}

// VideoCharacter sends POST /v1/videos (a video with a character); poll with VideoCharacter.
func (c *Client) VideoCharacter(ctx context.Context, req CharacterVideoRequest, opts ...CallOption) (*VideoTask, error) {
	return typed[VideoTask](ctx, c, opVideoCharacter, req, opts)
}

// VideoCharacterRaw is VideoCharacter with JSON in and out.
func (c *Client) VideoCharacterRaw(ctx context.Context, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runJSON(ctx, opVideoCharacter, req, opts)
}

// VideoRemix sends POST /v1/videos/{videoID}/remix; poll the new task with VideoCharacter.
func (c *Client) VideoRemix(ctx context.Context, videoID string, req RemixRequest, opts ...CallOption) (*VideoTask, error) {
	raw, err := c.runID(ctx, opVideoRemix, "videoID", videoID, req, opts)
	return decode[VideoTask](opVideoRemix.name, raw, err)
}

// VideoRemixRaw is VideoRemix with JSON in and out.
func (c *Client) VideoRemixRaw(ctx context.Context, videoID string, req json.RawMessage, opts ...CallOption) (json.RawMessage, error) {
	return c.runID(ctx, opVideoRemix, "videoID", videoID, req, opts)
}

// VideoStatus queries a task once (the id is URL-encoded, so any text is safe).
func (c *Client) VideoStatus(ctx context.Context, family VideoFamily, taskID string, opts ...CallOption) (*VideoTask, error) {
	raw, err := c.VideoStatusRaw(ctx, family, taskID, opts...)
	return decode[VideoTask]("video status", raw, err)
}

// VideoStatusRaw is VideoStatus returning the record as JSON.
func (c *Client) VideoStatusRaw(ctx context.Context, family VideoFamily, taskID string, opts ...CallOption) (json.RawMessage, error) {
	const op = "video status"
	id, err := idArg(op, "taskID", taskID)
	if err != nil {
		return nil, err
	}
	if c.st.hc != nil {
		p, err := videoStatusPath(family)
		if err != nil {
			return nil, err
		}
		path, err := p.with(op, taskID)
		if err != nil {
			return nil, err
		}
		return c.exchange(ctx, op, methodGet, path, nil, opts)
	}
	k, err := c.begin(ctx, op, opts)
	if err != nil {
		return nil, err
	}
	status, out := callVideoStatus(k.h, family, id)
	runtime.KeepAlive(c)
	return k.finish(status, out)
}
