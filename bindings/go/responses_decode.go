package gw

// A hand-written decoder for the Responses format's answer, as chat_decode.go's for chat
// answers (the same reader, the same rule: encoding/json's value, or decline).

var (
	responseFields      = []string{"id", "object", "created_at", "status", "model", "output", "usage"}
	outputItemFields    = []string{"type", "id", "status", "role", "content"}
	outputContentFields = []string{"type", "text"}
	responsesUseFields  = []string{"input_tokens", "output_tokens", "total_tokens"}
)

// decodeFast reads a whole Responses answer.
func (resp *Response) decodeFast(b []byte) bool {
	r := jsonReader{b: b}
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.first(0) && r.stringInto(&resp.ID)
		case "object":
			return seen.first(1) && r.stringInto(&resp.Object)
		case "created_at":
			return seen.first(2) && r.int64Into(&resp.CreatedAt)
		case "status":
			return seen.first(3) && r.stringInto(&resp.Status)
		case "model":
			return seen.first(4) && r.stringInto(&resp.Model)
		case "output":
			return seen.first(5) && list(&r, &resp.Output, r.outputItem)
		case "usage":
			return seen.first(6) && r.responsesUsage(&resp.Usage)
		}
		return r.other(key, responseFields)
	}) && r.atEnd()
}

func (r *jsonReader) outputItem(item *OutputItem) bool {
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "type":
			return seen.first(0) && r.stringInto(&item.Type)
		case "id":
			return seen.first(1) && r.stringInto(&item.ID)
		case "status":
			return seen.first(2) && r.stringInto(&item.Status)
		case "role":
			return seen.first(3) && r.stringInto(&item.Role)
		case "content":
			return seen.first(4) && list(r, &item.Content, r.outputContent)
		}
		return r.other(key, outputItemFields)
	})
}

func (r *jsonReader) outputContent(part *OutputContent) bool {
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "type":
			return seen.first(0) && r.stringInto(&part.Type)
		case "text":
			return seen.first(1) && r.stringInto(&part.Text)
		}
		return r.other(key, outputContentFields)
	})
}

func (r *jsonReader) responsesUsage(out **ResponsesUsage) bool {
	if r.null() {
		*out = nil
		return true
	}
	u := new(ResponsesUsage)
	*out = u
	var seen seenFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "input_tokens":
			return seen.first(0) && r.intInto(&u.InputTokens)
		case "output_tokens":
			return seen.first(1) && r.intInto(&u.OutputTokens)
		case "total_tokens":
			return seen.first(2) && r.intInto(&u.TotalTokens)
		}
		return r.other(key, responsesUseFields)
	})
}
