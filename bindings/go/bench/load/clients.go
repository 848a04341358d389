package main

import (
	"context"
	"fmt"

	"github.com/gw-dev/gw/bindings/go"
)

// loadClient is one library under load: a streamed chat whose events it reads, and a
// plain chat.
type loadClient struct {
	stream func(ctx context.Context, prompt string) (events int, err error)
	chat   func(ctx context.Context) error
	close  func()
}

// clients makes each library by name; clients_openai.go adds go-openai where it builds.
var clients = map[string]func(mockURL string) (loadClient, error){
	"gw-nethttp": func(u string) (loadClient, error) { return gwClient(u, false) },
	"gw-builtin": func(u string) (loadClient, error) { return gwClient(u, true) },
}

func gwClient(mockURL string, builtin bool) (loadClient, error) {
	c, err := gw.NewClient(gw.Options{BaseURL: mockURL, APIKey: key, MaxInFlight: -1, BuiltinTransport: builtin})
	if err != nil {
		return loadClient{}, err
	}
	return loadClient{
		stream: func(ctx context.Context, prompt string) (int, error) {
			s, err := c.ChatStream(ctx, gw.ChatRequest{Model: model, Messages: []gw.Message{gw.UserMessage(prompt)}})
			if err != nil {
				return 0, err
			}
			defer s.Close()
			n := 0
			for ev, err := range s.Events() {
				if err != nil {
					return n, err
				}
				_ = ev.TextDelta
				n++
			}
			return n, nil
		},
		chat: func(ctx context.Context) error {
			res, err := c.Chat(ctx, gw.ChatRequest{Model: model, Messages: []gw.Message{gw.UserMessage(question)}})
			if err == nil && res.Text() != "Echo: "+question {
				err = fmt.Errorf("answer %q", res.Text())
			}
			return err
		},
		close: func() { c.Close() },
	}, nil
}
