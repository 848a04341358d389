package gw

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// jsonReader reads one JSON text forward for the hand-written decoders (chat_decode.go).
// It is exact or it gives up: every method returns ok=false on anything it does not
// read exactly as encoding/json would (a syntax error, invalid UTF-8, a lone surrogate, a
// number an int cannot hold, nesting past maxSkipDepth), and the caller then decodes the
// whole text with encoding/json, whose answer (or error) is the one answer.
type jsonReader struct {
	b []byte
	i int
	// text is b as one string, made at the first string value: the values without
	// escapes are slices of it, one allocation for all of them (encoding/json makes one
	// too). It lives as long as any of them, as the answer's Raw does anyway. Not for a
	// text past sharedTextMax.
	text string
}

// sharedTextMax: a text longer than this (an embedding's numbers, say) is not copied
// whole for its few strings; each gets its own.
const sharedTextMax = 4096

// maxSkipDepth bounds the nesting of a skipped value; deeper goes to encoding/json.
const maxSkipDepth = 64

// next is the byte after JSON whitespace (not consumed), or 0 at the end.
func (r *jsonReader) next() byte {
	for r.i < len(r.b) {
		switch c := r.b[r.i]; c {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return c
		}
	}
	return 0
}

// eat consumes c when it comes next.
func (r *jsonReader) eat(c byte) bool {
	if r.next() == c {
		r.i++
		return true
	}
	return false
}

// atEnd: nothing but whitespace is left.
func (r *jsonReader) atEnd() bool { return r.next() == 0 && r.i == len(r.b) }

// null consumes a null when it comes next.
func (r *jsonReader) null() bool {
	if r.next() == 'n' && r.literal("null") {
		return true
	}
	return false
}

func (r *jsonReader) literal(word string) bool {
	if len(r.b)-r.i >= len(word) && string(r.b[r.i:r.i+len(word)]) == word {
		r.i += len(word)
		return true
	}
	return false
}

// members walks an object: each key (as written, without escapes) goes to member, which
// reads its value. ok is false for what is not an object, a key with escapes, or a
// member that gave up.
func (r *jsonReader) members(member func(key []byte) bool) bool {
	if !r.eat('{') {
		return false
	}
	if r.eat('}') {
		return true
	}
	for {
		key, ok := r.rawKey()
		if !ok || !r.eat(':') || !member(key) {
			return false
		}
		if r.eat(',') {
			continue
		}
		return r.eat('}')
	}
}

// elements walks an array, element reading each one.
func (r *jsonReader) elements(element func() bool) bool {
	if !r.eat('[') {
		return false
	}
	if r.eat(']') {
		return true
	}
	for {
		if !element() {
			return false
		}
		if r.eat(',') {
			continue
		}
		return r.eat(']')
	}
}

// rawKey is a key's text between its quotes; it gives up on a key with escapes or
// bytes outside ASCII (encoding/json would fold its case: see foldsToField).
func (r *jsonReader) rawKey() ([]byte, bool) {
	if !r.eat('"') {
		return nil, false
	}
	b, start := r.b, r.i
	i := plainRun(b, start)
	if i == len(b) || b[i] != '"' {
		return nil, false
	}
	r.i = i + 1
	return b[start:i], true
}

// What a byte inside a string asks of a reader.
const (
	plainByte   = iota
	quoteByte   // the end
	escapeByte  // a backslash
	controlByte // refused raw
	wideByte    // part of a multi-byte sequence: its UTF-8 is checked
)

// stringByte classifies every byte for the string loops: one load a byte.
var stringByte = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c == '"':
			t[c] = quoteByte
		case c == '\\':
			t[c] = escapeByte
		case c < 0x20:
			t[c] = controlByte
		case c >= utf8.RuneSelf:
			t[c] = wideByte
		}
	}
	return t
}()

// str reads a string value into a Go string, its escapes decoded.
func (r *jsonReader) str() (string, bool) { return r.stringValue(true) }

// stringValue reads a string value; keep: its Go string is wanted (else it is only
// checked, without allocating unless it has escapes).
func (r *jsonReader) stringValue(keep bool) (string, bool) {
	if !r.eat('"') {
		return "", false
	}
	b, start := r.b, r.i
	wide := false
	for i := plainRun(b, start); i < len(b); i = plainRun(b, i+1) {
		switch stringByte[b[i]] {
		case quoteByte:
			r.i = i + 1
			if wide && !utf8.Valid(b[start:i]) {
				return "", false
			}
			if !keep {
				return "", true
			}
			if len(b) > sharedTextMax {
				return string(b[start:i]), true
			}
			if r.text == "" {
				r.text = string(b)
			}
			return r.text[start:i], true
		case escapeByte:
			r.i = i
			return r.escapedStr(start)
		case controlByte:
			return "", false
		default:
			wide = true
		}
	}
	return "", false
}

// plainRun is the index of the first byte from i on that a string loop must look at
// (stringByte not plainByte), or len(b). Eight bytes a step (SWAR: exact, so the first
// hit's place comes from the mask), then a byte at a time for the last few.
func plainRun(b []byte, i int) int {
	const ones, low7 = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	// 0x80 in each byte of v that is zero, and nothing else (no carries).
	zeroBytes := func(v uint64) uint64 { return ^(((v & low7) + low7) | v | low7) }
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		hit := zeroBytes(x^(ones*'"')) | zeroBytes(x^(ones*'\\')) |
			zeroBytes(x&(ones*0xe0)) | // below 0x20: the top three bits are zero
			x&(ones*0x80) // a byte of a multi-byte sequence
		if hit != 0 {
			return i + bits.TrailingZeros64(hit)/8
		}
	}
	for i < len(b) && stringByte[b[i]] == plainByte {
		i++
	}
	return i
}

// escapedStr finishes str for a string with escapes, from its first byte at start.
func (r *jsonReader) escapedStr(start int) (string, bool) {
	out := make([]byte, 0, r.i-start+16)
	out = append(out, r.b[start:r.i]...)
	for r.i < len(r.b) {
		// The run up to the next byte that matters, copied at once (an answer's text is
		// mostly such runs between its \n).
		end := plainRun(r.b, r.i)
		out = append(out, r.b[r.i:end]...)
		r.i = end
		if r.i == len(r.b) {
			break
		}
		switch stringByte[r.b[r.i]] {
		case quoteByte:
			r.i++
			if !utf8.Valid(out) { // also catches invalid bytes written as they are
				return "", false
			}
			if len(out) == 0 {
				return "", true
			}
			// out is this string's own buffer, never written again: no second copy.
			return unsafe.String(&out[0], len(out)), true
		case controlByte:
			return "", false
		case wideByte:
			out = append(out, r.b[r.i])
			r.i++
			continue
		}
		if r.i+1 >= len(r.b) {
			return "", false
		}
		switch e := r.b[r.i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			rn, ok := r.hex4(r.i + 2)
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(rn) {
				// Only a whole pair: encoding/json writes U+FFFD for half of one.
				lo, ok := r.hex4(r.i + 8)
				if !ok || r.b[r.i+6] != '\\' || r.b[r.i+7] != 'u' {
					return "", false
				}
				if rn = utf16.DecodeRune(rn, lo); rn == utf8.RuneError {
					return "", false
				}
				r.i += 6
			}
			out = utf8.AppendRune(out, rn)
			r.i += 4
		default:
			return "", false
		}
		r.i += 2
	}
	return "", false
}

// hex4 is the rune of the four hex digits at at.
func (r *jsonReader) hex4(at int) (rune, bool) {
	if at+4 > len(r.b) {
		return 0, false
	}
	var v rune
	for _, c := range r.b[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | rune(c)
	}
	return v, true
}

// integer reads a number that is an integer as written (no fraction, no exponent) and
// fits bits bits, as encoding/json decodes into an int of that size.
func (r *jsonReader) integer(bits int) (int64, bool) {
	r.next()
	start := r.i
	if !r.number() {
		return 0, false
	}
	text := r.b[start:r.i]
	digits := text
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 18 { // past what cannot overflow: strconv decides, as encoding/json does
		v, err := strconv.ParseInt(string(text), 10, bits)
		return v, err == nil
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' { // a fraction or an exponent: not for an int
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if text[0] == '-' {
		v = -v
	}
	if bits < 64 && (v < -1<<(bits-1) || v >= 1<<(bits-1)) {
		return 0, false
	}
	return v, true
}

// number consumes one JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (r *jsonReader) number() bool {
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	switch {
	case r.i < len(r.b) && r.b[r.i] == '0':
		r.i++
	case r.digits() == 0:
		return false
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		if r.digits() == 0 {
			return false
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if r.digits() == 0 {
			return false
		}
	}
	return true
}

func (r *jsonReader) digits() int {
	start := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i - start
}

// skip reads past one value of any kind, checked as strictly as the decoders' own reads.
func (r *jsonReader) skip(depth int) bool {
	switch r.next() {
	case '"':
		_, ok := r.stringValue(false)
		return ok
	case '{':
		if depth >= maxSkipDepth {
			return false
		}
		return r.members(func([]byte) bool { return r.skip(depth + 1) })
	case '[':
		if depth >= maxSkipDepth {
			return false
		}
		return r.elements(func() bool { return r.skip(depth + 1) })
	case 't':
		return r.literal("true")
	case 'f':
		return r.literal("false")
	case 'n':
		return r.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return r.number()
	}
	return false
}

// foldsToField reports whether encoding/json, which matches keys to fields without
// regard to case, could take key for one of fields though it is none of them exactly:
// the decoders then give up rather than skip it. Conservative: '_' and '-' are ignored
// too, and rawKey already gave up on keys outside ASCII.
func foldsToField(key []byte, fields ...string) bool {
	for _, f := range fields {
		if foldedEqual(key, f) {
			return true
		}
	}
	return false
}

func foldedEqual(key []byte, field string) bool {
	i, j := 0, 0
	for {
		for i < len(key) && (key[i] == '_' || key[i] == '-') {
			i++
		}
		for j < len(field) && (field[j] == '_' || field[j] == '-') {
			j++
		}
		if i == len(key) || j == len(field) {
			return i == len(key) && j == len(field)
		}
		if lower(key[i]) != lower(field[j]) {
			return false
		}
		i, j = i+1, j+1
	}
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
