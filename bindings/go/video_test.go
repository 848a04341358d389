package gw

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

var fastPoll = WaitOptions{Interval: 10 * time.Millisecond}

func TestVideoCreateStatusWait(t *testing.T) {
	c := newClient(t)
	task, err := c.VideoCreate(bg(), VideoRequest{Model: "v", Prompt: "a sunrise", Duration: 5})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID == "" || task.Status != "processing" {
		t.Fatalf("task %+v", task)
	}
	first, err := c.VideoStatus(bg(), VideoUnified, task.ID)
	if err != nil || first.ID != task.ID || first.Status != "processing" {
		t.Fatalf("status %+v %v", first, err)
	}
	var seen []string
	progress := make(chan *VideoTask, 10)
	w := fastPoll
	w.OnProgress = func(p *VideoTask) { seen = append(seen, p.Status) }
	w.Progress = progress
	final, err := c.VideoWait(bg(), VideoUnified, task.ID, w)
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "succeeded" || final.VideoURL == "" || final.Progress != 100 {
		t.Fatalf("final %+v", final)
	}
	close(progress)
	n := 0
	for p := range progress {
		if p.ID != task.ID {
			t.Fatalf("progress record %+v", p)
		}
		n++
	}
	if len(seen) < 2 || seen[len(seen)-1] != "succeeded" || n != len(seen) {
		t.Fatalf("progress %v (channel got %d)", seen, n)
	}
}

func TestVideoFamilies(t *testing.T) {
	c := newClient(t)
	gen, err := c.VideoGenerate(bg(), VideoRequest{Model: "v", Prompt: "waves"})
	if err != nil || gen.ID == "" {
		t.Fatalf("%+v %v", gen, err)
	}
	if final, err := c.VideoWait(bg(), VideoUnified, gen.ID, fastPoll); err != nil || final.Status != "succeeded" {
		t.Fatalf("%+v %v", final, err)
	}

	char, err := c.VideoCharacter(bg(), CharacterVideoRequest{Model: "v", Prompt: "hello", CharacterID: "char_1"})
	if err != nil || char.Status != "queued" {
		t.Fatalf("%+v %v", char, err)
	}
	remix, err := c.VideoRemix(bg(), char.ID, RemixRequest{Prompt: "at night", Size: "720x1280"})
	if err != nil || remix.ID == "" || remix.ID == char.ID {
		t.Fatalf("%+v %v", remix, err)
	}
	if final, err := c.VideoWait(bg(), VideoCharacter, remix.ID, fastPoll); err != nil || final.Status != "completed" || final.VideoURL == "" {
		t.Fatalf("%+v %v", final, err)
	}

	k, err := As[VideoTask](c.VendorKText2Video(bg(), map[string]any{"prompt": "a fox", "model_name": "k1"}))
	if err != nil || k.ID == "" || k.Status != "submitted" {
		t.Fatalf("%+v %v", k, err)
	}
	if final, err := c.VideoWait(bg(), VideoVendorK, k.ID, fastPoll); err != nil || final.Status != "succeed" || final.VideoURL == "" {
		t.Fatalf("%+v %v", final, err)
	}

	if final, err := c.VideoWait(bg(), VideoVendorR, "r-task-1", fastPoll); err != nil || final.Status != "SUCCEEDED" || final.VideoURL == "" {
		t.Fatalf("%+v %v", final, err)
	}

	for _, raw := range []func() (json.RawMessage, error){
		func() (json.RawMessage, error) {
			return c.VideoCreateRaw(bg(), json.RawMessage(`{"model":"v","prompt":"p"}`))
		},
		func() (json.RawMessage, error) {
			return c.VideoGenerateRaw(bg(), json.RawMessage(`{"model":"v","prompt":"p"}`))
		},
		func() (json.RawMessage, error) {
			return c.VideoCharacterRaw(bg(), json.RawMessage(`{"model":"v","prompt":"p","character_id":"c"}`))
		},
		func() (json.RawMessage, error) {
			return c.VideoRemixRaw(bg(), char.ID, json.RawMessage(`{"prompt":"p"}`))
		},
		func() (json.RawMessage, error) { return c.VideoStatusRaw(bg(), VideoCharacter, char.ID) },
		func() (json.RawMessage, error) { return c.VideoWaitRaw(bg(), VideoCharacter, char.ID, fastPoll) },
	} {
		out, err := raw()
		if err != nil || !json.Valid(out) || !strings.Contains(string(out), `"status"`) {
			t.Fatalf("%s %v", out, err)
		}
	}
}

// A failed task is StatusVendor with the task record in Body.
func TestVideoWaitFailedTask(t *testing.T) {
	c := newClient(t)
	task, err := c.VideoCreate(bg(), VideoRequest{Model: "v", Prompt: "please fail"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.VideoWait(bg(), VideoUnified, task.ID, fastPoll)
	e := asError(t, err)
	if !errors.Is(err, ErrVendor) || e.Status != StatusVendor || e.Message != "video generation failed" {
		t.Fatalf("error %+v", e)
	}
	record, err := As[VideoTask](e.Body, nil)
	if err != nil || record.Status != "failed" || record.ID != task.ID {
		t.Fatalf("record %+v %v", record, err)
	}
}

func TestVideoWaitCancelAndDeadline(t *testing.T) {
	c := newClient(t)
	// Mock tasks finish on their third poll: each case gets a fresh one.
	fresh := func() string {
		task, err := c.VideoCreate(bg(), VideoRequest{Model: "v", Prompt: "slow"})
		if err != nil {
			t.Fatal(err)
		}
		return task.ID
	}
	slow := WaitOptions{Interval: 10 * time.Second}

	ctx, cancel := context.WithCancel(bg())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.VideoWait(ctx, VideoUnified, fresh(), slow)
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("cancel: %v after %v", err, time.Since(start))
	}

	ctx, cancel2 := context.WithTimeout(bg(), 150*time.Millisecond)
	defer cancel2()
	start = time.Now()
	_, err = c.VideoWait(ctx, VideoUnified, fresh(), slow)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrTimeout) || time.Since(start) > time.Second {
		t.Fatalf("deadline: %v after %v", err, time.Since(start))
	}

	// WaitOptions.Timeout alone is gw's own timeout, not the context's.
	_, err = c.VideoWait(bg(), VideoUnified, fresh(), WaitOptions{Interval: 10 * time.Second, Timeout: 100 * time.Millisecond})
	if e := asError(t, err); e.Status != StatusTimeout || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %+v", e)
	}

	// A progress channel nobody reads does not hang the wait past its context.
	ctx, cancel3 := context.WithTimeout(bg(), 200*time.Millisecond)
	defer cancel3()
	_, err = c.VideoWait(ctx, VideoUnified, fresh(), WaitOptions{Interval: 10 * time.Millisecond, Progress: make(chan *VideoTask)})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("unread channel: %v", err)
	}
}

func TestVideoWaitBadArguments(t *testing.T) {
	c := newClient(t)
	_, err := c.VideoWait(bg(), VideoUnified, "vtask_none", fastPoll)
	if e := asError(t, err); e.Status != 404 {
		t.Fatalf("error %+v", e)
	}
	_, err = c.VideoWait(bg(), VideoFamily(9), "x", fastPoll)
	if e := asError(t, err); e.Status != StatusInvalidArgument {
		t.Fatalf("error %+v", e)
	}
	_, err = c.VideoWait(bg(), VideoUnified, "x", WaitOptions{Interval: -time.Second})
	if e := asError(t, err); e.Status != StatusInvalidArgument || !strings.Contains(e.Message, "Interval") {
		t.Fatalf("error %+v", e)
	}
	_, err = c.VideoStatus(bg(), VideoUnified, "")
	if e := asError(t, err); e.Status != StatusInvalidArgument {
		t.Fatalf("error %+v", e)
	}
}

// A panic in a progress callback does not unwind through gw: it comes back out of
// VideoWait on the caller's goroutine, after the handle is freed.
func TestVideoWaitProgressPanic(t *testing.T) {
	c := newClient(t)
	task, err := c.VideoCreate(bg(), VideoRequest{Model: "v", Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	handles := liveHandles.Load()
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("recovered %v", p)
		}
		if liveHandles.Load() != handles {
			t.Fatalf("%d live handles after the panic, want %d", liveHandles.Load(), handles)
		}
	}()
	_, _ = c.VideoWait(bg(), VideoUnified, task.ID, WaitOptions{Interval: 10 * time.Millisecond, OnProgress: func(*VideoTask) { panic("boom") }})
	t.Fatal("no panic")
}
