// Package jsonfast writes the JSON objects that a run records once per op
// (history.jsonl's lines, the queue's Data) without encoding/json's
// reflection, which was most of the queue harness's own CPU (issue #28).
// It covers only what it can write byte for byte as json.Marshal does:
// strings of printable ASCII that json.Marshal leaves unescaped, integers.
// Anything else marks the object not Plain, and the caller falls back to
// json.Marshal; the tests of its callers compare the two.
package jsonfast

import (
	"encoding/json"
	"strconv"
)

// Obj builds one JSON object in B. Members are written in the order they
// are added, as json.Marshal writes a struct's fields in declaration order.
type Obj struct {
	B     []byte
	n     int
	plain bool
}

// Begin starts an object at the end of dst.
func Begin(dst []byte) Obj { return Obj{B: append(dst, '{'), plain: true} }

// End closes the object and reports whether every member was written as
// json.Marshal would; if not, B is to be discarded.
func (o *Obj) End() ([]byte, bool) {
	o.B = append(o.B, '}')
	return o.B, o.plain
}

func (o *Obj) key(k string) {
	if o.n > 0 {
		o.B = append(o.B, ',')
	}
	o.n++
	o.B = append(o.B, '"')
	o.B = append(o.B, k...)
	o.B = append(o.B, '"', ':')
}

// Str adds a string member.
func (o *Obj) Str(k, v string) {
	if !Plain(v) {
		o.plain = false
		return
	}
	o.key(k)
	o.B = append(o.B, '"')
	o.B = append(o.B, v...)
	o.B = append(o.B, '"')
}

// StrOmit adds a string member unless it is empty (omitempty).
func (o *Obj) StrOmit(k, v string) {
	if v != "" {
		o.Str(k, v)
	}
}

// Int adds an integer member.
func (o *Obj) Int(k string, v int64) {
	o.key(k)
	o.B = strconv.AppendInt(o.B, v, 10)
}

// IntOmit adds an integer member unless it is 0.
func (o *Obj) IntOmit(k string, v int64) {
	if v != 0 {
		o.Int(k, v)
	}
}

// UintOmit adds an unsigned member unless it is 0.
func (o *Obj) UintOmit(k string, v uint64) {
	if v != 0 {
		o.key(k)
		o.B = strconv.AppendUint(o.B, v, 10)
	}
}

// Raw adds a member whose value is already JSON. It is Plain only when
// raw holds printable ASCII without spaces or the characters json.Marshal
// escapes for HTML (<, >, &), and is valid: then json.Marshal's compacting
// of a json.RawMessage leaves it as it is.
func (o *Obj) Raw(k string, raw []byte) {
	for _, c := range raw {
		if c <= ' ' || c > '~' || c == '<' || c == '>' || c == '&' {
			o.plain = false
			return
		}
	}
	if !json.Valid(raw) {
		o.plain = false
		return
	}
	o.key(k)
	o.B = append(o.B, raw...)
}

// Plain reports whether json.Marshal writes s as it is between quotes:
// printable ASCII other than the quote, the backslash and <, >, & (which
// it escapes for HTML).
func Plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
