package reports

import (
	"encoding/json"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// decodeOp reads the fields the charts need from one history line. A
// small scanner does it without reflection (a million-op history renders
// several times faster); any line it does not fully understand goes to
// encoding/json, so the result never depends on which path ran.
func decodeOp(b []byte, op *slimOp) error {
	if scanOp(b, op) {
		return nil
	}
	*op = slimOp{}
	return json.Unmarshal(b, op)
}

func scanOp(b []byte, op *slimOp) bool {
	*op = slimOp{}
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipWS(b, i+1) == len(b)
	}
	for {
		key, j, ok := plainString(b, i)
		if !ok {
			return false
		}
		i = skipWS(b, j)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		switch string(key) {
		case "type", "outcome", "err":
			s, j, ok := plainString(b, i)
			if !ok {
				return false
			}
			switch string(key) {
			case "type":
				op.Type = history.OpType(intern(s))
			case "outcome":
				op.Outcome = history.Outcome(intern(s))
			default:
				op.Err = history.ErrKind(intern(s))
			}
			i = j
		case "client", "invoke", "complete":
			n, j, ok := integer(b, i)
			if !ok {
				return false
			}
			switch string(key) {
			case "client":
				op.Client = int(n)
			case "invoke":
				op.Invoke = n
			default:
				op.Complete = n
			}
			i = j
		default:
			j, ok := skipValue(b, i)
			if !ok {
				return false
			}
			i = j
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return skipWS(b, i+1) == len(b)
		default:
			return false
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// plainString reads a string without escapes; ok is false otherwise.
func plainString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return b[i+1 : j], j + 1, true
		case '\\':
			return nil, i, false
		}
		if b[j] < 0x20 {
			return nil, i, false
		}
	}
	return nil, i, false
}

// integer reads a JSON integer that fits in int64 (no fraction or exponent).
func integer(b []byte, i int) (n int64, next int, ok bool) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if i-start >= 18 {
			return 0, i, false
		}
		n = n*10 + int64(b[i]-'0')
		i++
	}
	if i == start || (i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E')) {
		return 0, i, false
	}
	if neg {
		n = -n
	}
	return n, i, true
}

// skipValue steps over any JSON value; it checks structure only as far as
// it needs to find the value's end.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, true
			}
		}
		return i, false
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			case '"':
				k, ok := skipValue(b, j)
				if !ok {
					return i, false
				}
				j = k - 1
			}
		}
		return i, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' {
		j++
	}
	if j == i {
		return i, false
	}
	if !json.Valid(b[i:j]) {
		return i, false
	}
	return j, true
}

// interned are the enum values of history lines, so decoding them does not
// allocate a string per op.
var interned = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		string(history.Get), string(history.Update), string(history.Put), string(history.Create), string(history.Fault),
		string(history.OK), string(history.Fail), string(history.Info),
		string(history.ErrWrongLastSeq), string(history.ErrWrongLastSeqAny), string(history.ErrNotFound), string(history.ErrTimeout),
		string(history.ErrNoResponders), string(history.ErrKeyExists), string(history.ErrUnavailable), string(history.ErrOther),
	} {
		m[s] = s
	}
	return m
}()

func intern(b []byte) string {
	if s, ok := interned[string(b)]; ok {
		return s
	}
	return string(b)
}
