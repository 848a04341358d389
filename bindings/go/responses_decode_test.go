package gw

import "testing"

var takenResponses = []string{
	`{"id":"resp_1","object":"response","created_at":1741476542,"status":"completed","model":"gpt-4.1","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"In a peaceful grove \u00e9\n","annotations":[]}]}],"usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":0},"output_tokens":87,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":123},"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","metadata":{}}`,
	`{"output":[{"type":"web_search_call","id":"ws_1","status":"completed"},{"type":"message","content":null},{"type":"message","content":[]}],"usage":null}`,
	`{"output":null,"id":null}`,
	`{}`,
}

var declinedResponses = []string{
	`{"Output":[]}`,
	`{"output":[],"output":[]}`,
	`{"output":[null]}`,
	`{"output":[{"content":[{"text":1}]}]}`,
	`{"output":[{"content":[{"type":"a","type":"b"}]}]}`,
	`{"created_at":1.5}`,
	`{"usage":{"total_tokens":-1e2}}`,
	`{"status":"done"`,
}

func TestResponsesDecodeTakesUsualAnswers(t *testing.T) { takenAlike[Response](t, takenResponses) }

func TestResponsesDecodeLeavesTheRestToEncodingJSON(t *testing.T) {
	declinedAlike[Response](t, declinedResponses)
}

func TestResponsesDecodeMutatedAnswers(t *testing.T) {
	taken := 0
	mutations(append(append([]string{}, takenResponses...), declinedResponses...),
		`{}[]:,"\ 0123456789.eE+-tfnulrsxOUC`+"\t\x00\xff", 20000, func(b string) {
			if decodedAlike[Response](t, b) {
				taken++
			}
		})
	if taken == 0 {
		t.Fatal("no mutation was taken by the decoder: the test checks nothing")
	}
}

func BenchmarkResponsesDecode(b *testing.B) { benchDecode[Response](b, takenResponses[0]) }
