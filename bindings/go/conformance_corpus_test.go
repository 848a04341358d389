package gw_test

// The Go runner's reading of the conformance corpus (conformance/): case files, the skip
// list, the checks of `expect` (conformance/README.md), the TSV and the printed line.
// Knows nothing of gw's API; conformance_test.go makes the calls.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// corpusCase is one file under conformance/cases, as the README describes it.
type corpusCase struct {
	name        string                     // path under cases/ without .json
	Operation   string                     `json:"operation"`
	Request     json.RawMessage            `json:"request"`      // passed as written
	RequestText *string                    `json:"request_text"` // passed unparsed
	Args        map[string]any             `json:"args"`
	Options     map[string]json.RawMessage `json:"options"`
	Faults      []json.RawMessage          `json:"faults"`
	Setup       *struct {
		Operation string          `json:"operation"`
		Request   json.RawMessage `json:"request"`
		IDPath    string          `json:"id_path"`
	} `json:"setup"`
	Cancel *struct {
		AfterMS int64 `json:"after_ms"`
		BoundMS int64 `json:"bound_ms"`
	} `json:"cancel"`
	Expect map[string]any `json:"expect"`
}

// seenCall is what the runner saw of one case's call and of the mock's recording.
type seenCall struct {
	status    int
	out       any // the answer, or the error's body, decoded
	errFields map[string]any
	events    []seenEvent
	attempts  int // -1: no metadata
	requestID bool
	metaText  string
	// cancelToReturn: from the cancel to the call's return (negative: it returned first).
	cancelToReturn *time.Duration
	sent           int
	lastBody       any
	lastHeaders    [][2]string
	lastQuery      *string
}

type seenEvent struct {
	name, textDelta string
	choice          int
}

// corpus is the cases and this language's skips, and collects the outcomes.
type corpus struct {
	language string
	cases    []corpusCase
	skips    map[string]string
	rows     []string // TSV lines
	failures []string
	passed   int
	failed   int
	skipped  int
}

func loadCorpus(t *testing.T, dir, language string) *corpus {
	t.Helper()
	c := &corpus{language: language}
	casesDir := filepath.Join(dir, "cases")
	err := filepath.WalkDir(casesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var cc corpusCase
		if err := json.Unmarshal(text, &cc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(casesDir, path)
		cc.name = filepath.ToSlash(strings.TrimSuffix(rel, ".json"))
		c.cases = append(c.cases, cc)
		return nil
	})
	if err != nil {
		t.Fatalf("conformance %s: reading the corpus: %v", language, err)
	}
	sort.Slice(c.cases, func(i, j int) bool { return c.cases[i].name < c.cases[j].name })
	text, err := os.ReadFile(filepath.Join(dir, "skip.json"))
	if err != nil {
		t.Fatalf("conformance %s: %v", language, err)
	}
	var skips map[string]map[string]string
	if err := json.Unmarshal(text, &skips); err != nil {
		t.Fatalf("conformance %s: skip.json: %v", language, err)
	}
	c.skips = skips[language]
	if c.skips == nil {
		c.skips = map[string]string{}
	}
	return c
}

func (c *corpus) record(name, word, why string) {
	switch word {
	case "pass":
		c.passed++
	case "skip":
		c.skipped++
	default:
		c.failed++
		c.failures = append(c.failures, fmt.Sprintf("conformance %s FAIL %s: %s", c.language, name, why))
	}
	why = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(why)
	c.rows = append(c.rows, name+"\t"+word+"\t"+why+"\n")
}

// finish writes <language>.tsv into outDir, prints the failures and the line, and fails
// the test when a case failed.
func (c *corpus) finish(t *testing.T, outDir string) {
	t.Helper()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	tsv := filepath.Join(outDir, c.language+".tsv")
	if err := os.WriteFile(tsv, []byte(strings.Join(c.rows, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range c.failures {
		fmt.Println(f)
		t.Error(f)
	}
	fmt.Printf("conformance %s: %d passed, %d failed, %d skipped\n", c.language, c.passed, c.failed, c.skipped)
}

// valueAt walks doc along a dotted path of keys and indexes (choices.0.message.content);
// "" is doc itself.
func valueAt(doc any, path string) (any, bool) {
	if path == "" {
		return doc, true
	}
	node := doc
	for _, step := range strings.Split(path, ".") {
		switch n := node.(type) {
		case map[string]any:
			v, ok := n[step]
			if !ok {
				return nil, false
			}
			node = v
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			node = n[i]
		default:
			return nil, false
		}
	}
	return node, true
}

// show is a value as JSON for a message, cut at 300 bytes.
func show(v any, present bool) string {
	if !present {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// Both sides are decoded by encoding/json (numbers float64), so DeepEqual compares numbers
// by value (1 == 1.0), as the README asks.
func sameJSON(a, b any) bool { return reflect.DeepEqual(a, b) }

func checkPairs(what string, doc any, pairs any, problems *[]string) {
	list, _ := pairs.([]any)
	for _, p := range list {
		pair, _ := p.([]any)
		path, ok := func() (string, bool) {
			if len(pair) != 2 {
				return "", false
			}
			s, ok := pair[0].(string)
			return s, ok
		}()
		if !ok {
			*problems = append(*problems, fmt.Sprintf("%s: malformed pair %s", what, show(p, true)))
			continue
		}
		want := pair[1]
		got, present := valueAt(doc, path)
		if (want == nil && got == nil) || (present && sameJSON(got, want)) {
			continue
		}
		*problems = append(*problems, fmt.Sprintf("%s %s: got %s, expected %s", what, path, show(got, present), show(want, true)))
	}
}

// check lists every difference between the case's expect and what was seen; "" passes.
func check(cc *corpusCase, seen *seenCall, statusName func(int) string) string {
	e := cc.Expect
	var problems []string
	if want, ok := e["status"].(float64); ok && int(want) != seen.status {
		problems = append(problems, fmt.Sprintf("status %d (%s), expected %d; out: %s",
			seen.status, statusName(seen.status), int(want), show(seen.out, true)))
	}
	if want, ok := e["error"].(map[string]any); ok {
		checkError(want, seen, &problems)
	}
	if pairs, ok := e["answer"]; ok {
		checkPairs("answer", seen.out, pairs, &problems)
	}
	lacks, _ := e["answer_lacks"].([]any)
	for _, p := range lacks {
		path, _ := p.(string)
		if v, present := valueAt(seen.out, path); present && v != nil {
			problems = append(problems, fmt.Sprintf("answer %s: expected absent, got %s", path, show(v, true)))
		}
	}
	if ev, ok := e["events"].(map[string]any); ok {
		checkEvents(ev, seen.events, &problems)
	}
	if meta, ok := e["meta"].(map[string]any); ok {
		if want, ok := meta["attempts"].(float64); ok && seen.attempts != int(want) {
			problems = append(problems, fmt.Sprintf("meta.attempts %d, expected %d", seen.attempts, int(want)))
		}
		if meta["request_id"] == true && !seen.requestID {
			problems = append(problems, "meta.request_id: absent")
		}
		if secret, ok := meta["text_lacks"].(string); ok &&
			strings.Contains(strings.ToLower(seen.metaText), strings.ToLower(secret)) {
			problems = append(problems, fmt.Sprintf("metadata holds %q (any case)", secret))
		}
	}
	if want, ok := e["sent"].(float64); ok && seen.sent != int(want) {
		problems = append(problems, fmt.Sprintf("sent %d requests, expected %d", seen.sent, int(want)))
	}
	if want, ok := e["sent_query"].(string); ok && (seen.lastQuery == nil || *seen.lastQuery != want) {
		got := "none"
		if seen.lastQuery != nil {
			got = strconv.Quote(*seen.lastQuery)
		}
		problems = append(problems, fmt.Sprintf("sent query %s, expected %q", got, want))
	}
	if pairs, ok := e["sent_body"]; ok {
		checkPairs("sent_body", seen.lastBody, pairs, &problems)
	}
	if headers, ok := e["sent_header"].(map[string]any); ok {
		for name, want := range headers {
			var got *string
			for _, h := range seen.lastHeaders {
				if strings.EqualFold(h[0], name) {
					v := h[1]
					got = &v
				}
			}
			w, isText := want.(string)
			if (want == nil && got == nil) || (isText && got != nil && *got == w) {
				continue
			}
			shown := "none"
			if got != nil {
				shown = strconv.Quote(*got)
			}
			problems = append(problems, fmt.Sprintf("sent header %s: got %s, expected %s", name, shown, show(want, true)))
		}
	}
	if cc.Cancel != nil {
		bound := time.Duration(cc.Cancel.BoundMS) * time.Millisecond
		switch d := seen.cancelToReturn; {
		case d == nil:
			problems = append(problems, "cancel: never cancelled")
		case *d < 0:
			problems = append(problems, fmt.Sprintf("cancel: the call returned %v before the cancel", -*d))
		case *d > bound:
			problems = append(problems, fmt.Sprintf("cancel to return: %v, bound %v", d.Round(time.Millisecond), bound))
		}
	}
	return strings.Join(problems, "; ")
}

func checkError(want map[string]any, seen *seenCall, problems *[]string) {
	if seen.errFields == nil {
		*problems = append(*problems, fmt.Sprintf("error expected, the call succeeded: %s", show(seen.out, true)))
		return
	}
	message, _ := seen.errFields["message"].(string)
	for _, k := range sortedKeys(want) {
		w := want[k]
		switch k {
		case "message_contains", "message_lacks":
			needle, _ := w.(string)
			if strings.Contains(message, needle) != (k == "message_contains") {
				*problems = append(*problems, fmt.Sprintf("error.message %s %q: %q", k, needle, message))
			}
			continue
		}
		got, present := seen.errFields[k]
		if present && sameJSON(got, w) {
			continue
		}
		*problems = append(*problems, fmt.Sprintf("error.%s: got %s, expected %s", k, show(got, present), show(w, true)))
	}
}

func checkEvents(want map[string]any, events []seenEvent, problems *[]string) {
	n := len(events)
	if c, ok := want["count"].(float64); ok && n != int(c) {
		*problems = append(*problems, fmt.Sprintf("events: %d, expected %d", n, int(c)))
	}
	if c, ok := want["min_count"].(float64); ok && n < int(c) {
		*problems = append(*problems, fmt.Sprintf("events: %d, expected at least %d", n, int(c)))
	}
	if w, ok := want["text"].(string); ok {
		var text strings.Builder
		for _, ev := range events {
			if ev.choice == 0 {
				text.WriteString(ev.textDelta)
			}
		}
		if text.String() != w {
			*problems = append(*problems, fmt.Sprintf("event text %q, expected %q", text.String(), w))
		}
	}
	names := make([]any, n)
	for i, ev := range events {
		names[i] = ev.name
	}
	if w, ok := want["names"].([]any); ok && !sameJSON(names, w) {
		*problems = append(*problems, fmt.Sprintf("event names %s, expected %s", show(names, true), show(w, true)))
	}
	for _, end := range []struct {
		key string
		at  int
	}{{"first_name", 0}, {"last_name", n - 1}} {
		key, at := end.key, end.at
		w, ok := want[key].(string)
		if !ok {
			continue
		}
		if n == 0 || names[at] != w {
			got := "none"
			if n > 0 {
				got = names[at].(string)
			}
			*problems = append(*problems, fmt.Sprintf("%s: %q, expected %q", key, got, w))
		}
	}
}

// sortedKeys gives a map's keys in order, so a case's checks and options run (and report)
// in the same order every time.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
