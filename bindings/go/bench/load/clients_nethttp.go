package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// net/http by hand, no client library: the floor every net/http-based client stands on
// (its goroutines per connection, its buffers, the runtime's), so gw's and go-openai's
// figures can be read as what each adds to it. The same requests, the answer decoded
// into the few fields used, a stream read line by line with each chunk decoded.
func init() {
	clients["nethttp"] = func(mockURL string) (loadClient, error) {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 16 // as gw's own transport
		hc := &http.Client{Transport: t}
		post := func(ctx context.Context, body any) (*http.Response, error) {
			b, err := json.Marshal(body)
			if err != nil {
				return nil, err
			}
			req, err := http.NewRequestWithContext(ctx, "POST", mockURL+"/v1/chat/completions", bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err == nil && resp.StatusCode != 200 {
				resp.Body.Close()
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
			return resp, err
		}
		type message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		type request struct {
			Model    string    `json:"model"`
			Messages []message `json:"messages"`
			Stream   bool      `json:"stream,omitempty"`
		}
		return loadClient{
			stream: func(ctx context.Context, prompt string) (int, error) {
				resp, err := post(ctx, request{Model: model, Messages: []message{{"user", prompt}}, Stream: true})
				if err != nil {
					return 0, err
				}
				defer resp.Body.Close()
				n := 0
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					data, ok := strings.CutPrefix(sc.Text(), "data: ")
					if !ok {
						continue
					}
					if data == "[DONE]" {
						return n, nil
					}
					var chunk struct {
						Choices []struct {
							Delta struct {
								Content string `json:"content"`
							} `json:"delta"`
						} `json:"choices"`
					}
					if err := json.Unmarshal([]byte(data), &chunk); err != nil {
						return n, err
					}
					n++
				}
				if err := sc.Err(); err != nil {
					return n, err
				}
				return n, io.ErrUnexpectedEOF
			},
			chat: func(ctx context.Context) error {
				resp, err := post(ctx, request{Model: model, Messages: []message{{"user", question}}})
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				var answer struct {
					Choices []struct {
						Message message `json:"message"`
					} `json:"choices"`
				}
				if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
					return err
				}
				if len(answer.Choices) == 0 || answer.Choices[0].Message.Content != "Echo: "+question {
					return fmt.Errorf("answer %+v", answer)
				}
				return nil
			},
			close: func() { t.CloseIdleConnections() },
		}, nil
	}
}
