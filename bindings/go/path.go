package gw

import "strings"

// The paths of the operations with a path parameter, for the exchange (which takes a
// method and a path, as gw_request does, and finds the operation's row and checks from
// the path). A parameter is encoded as gw's own functions encode it (ops.rs encode_param):
// one segment, RFC 3986 unreserved characters and ':' '@' kept, the rest percent-encoded;
// a model slug may span segments.

// pathParam is one operation's path with one parameter.
type pathParam struct {
	prefix, suffix string
	arg            string // the C argument's name, for an empty value (as gw names it)
	param          string // the template's name, for '.' and '..'
	multiSegment   bool
}

var (
	pathRemix           = pathParam{"/v1/videos/", "/remix", "video_id", "id", false}
	pathVendorFEdit     = pathParam{"/vendorF/", "/edit", "model_slug", "model_slug", true}
	pathGenerateContent = pathParam{"/v1beta/models/", ":generateContent", "model", "model", false}
)

// videoStatusPath is each family's status operation (gw_video_status).
func videoStatusPath(family VideoFamily) (pathParam, error) {
	switch family {
	case VideoUnified:
		return pathParam{"/v1/video/generations/", "", "task_id", "id", false}, nil
	case VideoCharacter:
		return pathParam{"/v1/videos/", "", "task_id", "id", false}, nil
	case VideoVendorK:
		return pathParam{"/vendorK/v1/videos/", "", "task_id", "id", false}, nil
	case VideoVendorR:
		return pathParam{"/vendorR/task/", "", "task_id", "taskId", false}, nil
	}
	e := argError("video status", "family: must be GW_VIDEO_UNIFIED, GW_VIDEO_CHARACTER, GW_VIDEO_VENDOR_K or GW_VIDEO_VENDOR_R (got %d)", int(family))
	e.Param = "family"
	return pathParam{}, e
}

// with is the path for value, NUL-terminated, or the *Error gw gives for it.
func (p pathParam) with(op, value string) ([]byte, error) {
	bad := func(name, why string) error {
		e := argError(op, "%s: %s", name, why)
		e.Param = name
		return e
	}
	if value == "" {
		return nil, bad(p.arg, "must be a non-empty string")
	}
	if strings.IndexByte(value, 0) >= 0 {
		return nil, bad(p.arg, "contains a NUL byte")
	}
	var b strings.Builder
	b.WriteString(p.prefix)
	if !p.multiSegment {
		if value == "." || value == ".." {
			return nil, bad(p.param, "must not be '.' or '..'")
		}
		encodeSegment(&b, value)
	} else {
		for i, segment := range strings.Split(value, "/") {
			if segment == "" || segment == "." || segment == ".." {
				return nil, bad(p.param, "must be segments separated by single '/', without '.' or '..'")
			}
			if i > 0 {
				b.WriteByte('/')
			}
			encodeSegment(&b, segment)
		}
	}
	b.WriteString(p.suffix)
	return nulTerminated(b.String()), nil
}

func encodeSegment(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == ':' || c == '@' {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}
