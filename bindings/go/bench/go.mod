module github.com/gw-dev/gw/bindings/go/bench

go 1.26.0

require (
	github.com/gw-dev/gw/bindings/go v0.0.0
	github.com/openai/openai-go/v3 v3.95.0
	github.com/sashabaranov/go-openai v1.43.0
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da // indirect
)

replace github.com/gw-dev/gw/bindings/go => ../

tool golang.org/x/perf/cmd/benchstat
