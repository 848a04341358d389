// Package bench measures bindings/go against the two common Go OpenAI clients, openai-go
// and go-openai, on the same gw-mock with the same requests. It is its own module so the
// binding keeps no third-party dependency. Run with `make bench-go` (scripts/bench-go.sh).
//
// Per call: ns/op is the wall time of one chat call over loopback (the mock's time
// included, the same for everyone); cpu-ns/op is this process's CPU time (user + system,
// every thread: Go's, and gw's own Rust code) per call. Per stream event: a chat stream of
// about 260 events, cpu-ns/event and allocs/event for reading each event's text delta.
package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	openai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/gw-dev/gw/bindings/go"
)

var mockURL string

const key = "sk-test"

func TestMain(m *testing.M) {
	bin := os.Getenv("GW_MOCK_BIN")
	if bin == "" {
		bin = filepath.Join("..", "..", "..", "target", "release", "gw-mock")
	}
	cmd := exec.Command(bin, "--port", "0", "--exit-on-stdin-eof")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "bench: starting gw-mock:", err)
		os.Exit(1)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: gw-mock printed no address:", err)
		os.Exit(1)
	}
	mockURL = strings.TrimSpace(line)
	code := m.Run()
	stdin.Close()
	cmd.Process.Kill()
	cmd.Wait()
	os.Exit(code)
}

// resetMock drops the mock's recordings so a long run does not grow it.
func resetMock(b *testing.B) {
	resp, err := http.Post(mockURL+"/__mock/reset", "application/json", strings.NewReader("{}"))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// contextSwitches is the process's voluntary and involuntary context switches so far.
func contextSwitches() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Nvcsw + ru.Nivcsw
}

func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}

// The same requests for every client.
const (
	model    = "bench-model"
	question = "What is the capital of France?"
)

var (
	streamWords = strings.TrimSpace(strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit ", 32)) // 256 words
	wantChat    = "Echo: " + question
	wantStream  = "Echo: " + streamWords
)

// client is one library under test: a chat call, and a stream whose text deltas it reads.
type client struct {
	name   string
	chat   func(ctx context.Context) (string, error)
	stream func(ctx context.Context) (text string, events int, err error)
}

func clients(b *testing.B) []client {
	g, err := gw.NewClient(gw.Options{BaseURL: mockURL, APIKey: key})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	oa := openai.NewClient(option.WithBaseURL(mockURL+"/v1/"), option.WithAPIKey(key))
	cfg := goopenai.DefaultConfig(key)
	cfg.BaseURL = mockURL + "/v1"
	gl := goopenai.NewClientWithConfig(cfg)

	return []client{
		{
			name: "client=gw",
			chat: func(ctx context.Context) (string, error) {
				res, err := g.Chat(ctx, gw.ChatRequest{Model: model, Messages: []gw.Message{gw.UserMessage(question)}})
				if err != nil {
					return "", err
				}
				return res.Text(), nil
			},
			stream: func(ctx context.Context) (string, int, error) {
				s, err := g.ChatStream(ctx, gw.ChatRequest{Model: model, Messages: []gw.Message{gw.UserMessage(streamWords)}})
				if err != nil {
					return "", 0, err
				}
				defer s.Close()
				var text strings.Builder
				n := 0
				for ev, err := range s.Events() {
					if err != nil {
						return "", n, err
					}
					text.WriteString(ev.TextDelta)
					n++
				}
				return text.String(), n, nil
			},
		},
		{
			name: "client=openai-go",
			chat: func(ctx context.Context) (string, error) {
				res, err := oa.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
					Model:    model,
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)},
				})
				if err != nil {
					return "", err
				}
				return res.Choices[0].Message.Content, nil
			},
			stream: func(ctx context.Context) (string, int, error) {
				s := oa.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
					Model:    model,
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(streamWords)},
				})
				defer s.Close()
				var text strings.Builder
				n := 0
				for s.Next() {
					chunk := s.Current()
					if len(chunk.Choices) > 0 {
						text.WriteString(chunk.Choices[0].Delta.Content)
					}
					n++
				}
				return text.String(), n, s.Err()
			},
		},
		{
			name: "client=go-openai",
			chat: func(ctx context.Context) (string, error) {
				res, err := gl.CreateChatCompletion(ctx, goopenai.ChatCompletionRequest{
					Model:    model,
					Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: question}},
				})
				if err != nil {
					return "", err
				}
				return res.Choices[0].Message.Content, nil
			},
			stream: func(ctx context.Context) (string, int, error) {
				s, err := gl.CreateChatCompletionStream(ctx, goopenai.ChatCompletionRequest{
					Model:    model,
					Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: streamWords}},
					Stream:   true,
				})
				if err != nil {
					return "", 0, err
				}
				defer s.Close()
				var text strings.Builder
				n := 0
				for {
					chunk, err := s.Recv()
					if err == io.EOF {
						return text.String(), n, nil
					}
					if err != nil {
						return "", n, err
					}
					if len(chunk.Choices) > 0 {
						text.WriteString(chunk.Choices[0].Delta.Content)
					}
					n++
				}
			},
		},
	}
}

// BenchmarkChat: one non-streamed chat completion per op, one goroutine.
func BenchmarkChat(b *testing.B) {
	for _, c := range clients(b) {
		b.Run(c.name, func(b *testing.B) {
			resetMock(b)
			ctx := context.Background()
			if got, err := c.chat(ctx); err != nil || got != wantChat { // warm the connection
				b.Fatalf("%q %v", got, err)
			}
			b.ReportAllocs()
			cpu := cpuNow()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.chat(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkChatConcurrent: the same call from 1, 8 and 64 goroutines on one client
// (b.N calls in all); CPU time and context switches (voluntary and involuntary, every
// thread) per call.
func BenchmarkChatConcurrent(b *testing.B) {
	for _, goroutines := range []int{1, 8, 64} {
		for _, c := range clients(b) {
			b.Run(fmt.Sprintf("goroutines=%d/%s", goroutines, c.name), func(b *testing.B) {
				resetMock(b)
				b.ReportAllocs()
				var next atomic.Int64
				var wg sync.WaitGroup
				cpu, switches := cpuNow(), contextSwitches()
				b.ResetTimer()
				for g := 0; g < goroutines; g++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						ctx := context.Background()
						for next.Add(1) <= int64(b.N) {
							if _, err := c.chat(ctx); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(contextSwitches()-switches)/float64(b.N), "ctxsw/op")
			})
		}
	}
}

// BenchmarkStream: one streamed chat of ~260 events per op; per-event CPU and allocations.
func BenchmarkStream(b *testing.B) {
	for _, c := range clients(b) {
		b.Run(c.name, func(b *testing.B) {
			resetMock(b)
			ctx := context.Background()
			text, events, err := c.stream(ctx)
			if err != nil || text != wantStream {
				b.Fatalf("%d events, %q, %v", events, text, err)
			}
			b.ReportAllocs()
			cpu, allocs := cpuNow(), mallocs()
			total := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, n, err := c.stream(ctx)
				if err != nil {
					b.Fatal(err)
				}
				total += n
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuNow()-cpu)/float64(total), "cpu-ns/event")
			b.ReportMetric(float64(mallocs()-allocs)/float64(total), "allocs/event")
			b.ReportMetric(float64(total)/float64(b.N), "events/op")
		})
	}
}
