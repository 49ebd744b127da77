package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Recorder appends ops to a JSONL file as they complete, so that a run that
// dies half-way still leaves a checkable history on disk.
type Recorder struct {
	start time.Time

	mu       sync.Mutex
	f        *os.File
	w        *bufio.Writer
	ops      [][]Op // in chunks (keep)
	err      error
	forget   bool       // ops go to disk only (Stream)
	watchers []func(Op) // see Watch
}

// Stream stops keeping ops in memory: they go to the file and to the
// watchers only, so an hour-long run does not grow the harness. Ops then
// returns what was recorded before.
func (r *Recorder) Stream() {
	r.mu.Lock()
	r.forget = true
	r.mu.Unlock()
}

// Watch calls f with every op recorded from now on, in the order they are
// recorded (which is close to, not exactly, the order they completed). f
// runs under the recorder's lock: keep it short.
func (r *Recorder) Watch(f func(Op)) {
	r.mu.Lock()
	r.watchers = append(r.watchers, f)
	r.mu.Unlock()
}

// NewRecorder creates path and starts the clock.
func NewRecorder(path string) (*Recorder, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &Recorder{start: time.Now(), f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// Now is the time since the start in nanoseconds, from the monotonic clock.
func (r *Recorder) Now() int64 { return int64(time.Since(r.start)) }

// Start is the wall-clock time of the run's start.
func (r *Recorder) Start() time.Time { return r.start }

// Add records a completed op. It encodes the op under the lock, straight
// into the file's buffer (appendOp: no reflection, no allocation), so
// lines stay in the order ops are kept.
func (r *Recorder) Add(op Op) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.forget {
		r.keep(op)
	}
	for _, f := range r.watchers {
		f(op)
	}
	b, err := appendOp(r.w.AvailableBuffer(), &op)
	if err == nil {
		_, err = r.w.Write(append(b, '\n'))
	}
	if err != nil && r.err == nil {
		r.err = err
	}
}

// opsChunk is how many ops one of the Recorder's chunks holds: keeping an
// op never copies those before it, as one growing slice did.
const opsChunk = 1024

func (r *Recorder) keep(op Op) {
	if n := len(r.ops); n == 0 || len(r.ops[n-1]) == opsChunk {
		r.ops = append(r.ops, make([]Op, 0, opsChunk))
	}
	last := &r.ops[len(r.ops)-1]
	*last = append(*last, op)
}

// Flush writes buffered ops to disk.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	return r.err
}

// Ops returns a copy of everything recorded so far.
func (r *Recorder) Ops() []Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.ops {
		n += len(c)
	}
	out := make([]Op, 0, n)
	for _, c := range r.ops {
		out = append(out, c...)
	}
	return out
}

// Close flushes and closes the file.
func (r *Recorder) Close() error {
	err := r.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadOps loads a history.jsonl file and validates every op (Op.Validate).
// A torn last line (a run killed while writing: JSON cut short) is ignored;
// any other line that does not parse, or any invalid op, is an error
// naming path:line.
func ReadOps(path string) ([]Op, error) {
	var ops []Op
	err := scanOps(path, func(lines int) { ops = make([]Op, 0, lines) }, func(_ []byte, op Op) error {
		ops = append(ops, op)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ops, nil
}

// ReadOpsWhere loads the ops of a history.jsonl file for which keep is
// true, validating every op as ReadOps does.
func ReadOpsWhere(path string, keep func(*Op) bool) ([]Op, error) {
	var ops []Op
	err := scanOps(path, func(int) {}, func(_ []byte, op Op) error {
		if keep(&op) {
			ops = append(ops, op)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ops, nil
}

// scanOps reads path as ReadOps does and hands visit each valid op with
// its raw line, in order; sized is told the file's line count first.
func scanOps(path string, sized func(lines int), visit func(raw []byte, op Op) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// One op per line: counting the lines first lets the slice be made
	// once (appending to a growing slice of ops copies them again and
	// again, and holds the old copies until the GC frees them).
	lines, err := countLines(f)
	if err != nil {
		return err
	}
	sized(lines)
	in := newInterner()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	var pending error
	for sc.Scan() {
		line++
		if pending != nil {
			return pending
		}
		op, err := decodeOp(sc.Bytes(), in)
		if err != nil {
			if !isTorn(err) {
				return &LineError{File: path, Line: line, Err: err} // parsed, but a field has the wrong type
			}
			pending = &LineError{File: path, Line: line, Err: err}
			continue
		}
		if err := op.Validate(); err != nil {
			return &LineError{File: path, Line: line, Err: err}
		}
		if err := visit(sc.Bytes(), op); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	return nil
}

// CountLines counts the lines of a file, a last one without its newline
// included: a history.jsonl's ops, without reading them.
func CountLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return countLines(f)
}

// countLines counts the lines of f (a last one without its newline
// included) and rewinds it.
func countLines(f *os.File) (int, error) {
	buf := make([]byte, 1<<20)
	n, last := 0, byte('\n')
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	_, err := f.Seek(0, io.SeekStart)
	return n, err
}

// WriteStream saves the observed stream as JSONL.
func WriteStream(path string, entries []Entry, complete bool) error {
	// The first line says whether the read was complete.
	return WriteEntries(path, struct {
		Complete bool `json:"complete"`
		Count    int  `json:"count"`
	}{complete, len(entries)}, entries)
}

// WriteEntries saves a file of stream entries as JSONL: head (a
// workload's own first line) and then one entry a line.
func WriteEntries(path string, head any, entries []Entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	if err := enc.Encode(head); err != nil {
		f.Close()
		return err
	}
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadStream loads a file written by WriteStream and validates it
// (ValidateStream). A torn last line (the read-back interrupted while
// writing: JSON cut short) ends the stream there, which is then
// incomplete, as ReadOps ignores a torn last line of history.jsonl; any
// other line that does not parse is an error. Errors name path:line.
func ReadStream(path string) ([]Entry, bool, error) {
	f, err := readStream(path)
	return f.entries, f.complete, err
}

// ReadStreamTorn is ReadStream, and the line cut short (the last), or 0:
// a reader that says why its read-back is incomplete names it.
func ReadStreamTorn(path string) (entries []Entry, complete bool, torn int, err error) {
	f, err := readStream(path)
	return f.entries, f.complete, f.torn, err
}

// streamFile is a stream.jsonl as read: its entries, whether they are the
// whole stream, and the line cut short (the last), or 0.
type streamFile struct {
	entries  []Entry
	complete bool
	torn     int
}

// streamHead is stream.jsonl's first line.
type streamHead struct {
	Complete *bool `json:"complete"`
	Count    *int  `json:"count"`
}

// check reports what makes the header unusable.
func (h streamHead) check() error {
	switch {
	case h.Complete == nil || h.Count == nil:
		return errors.New(`header without "complete" and "count"`)
	case *h.Count < 0:
		return fmt.Errorf("negative count %d", *h.Count)
	}
	return nil
}

func readStream(path string) (streamFile, error) {
	var out streamFile
	f, err := os.Open(path)
	if err != nil {
		return out, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var head streamHead
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return out, fmt.Errorf("%s:1: %w", path, err)
		}
		return out, &LineError{File: path, Line: 1, Err: errors.New(`empty file (want a {"complete":bool,"count":n} header)`)}
	}
	headErr := json.Unmarshal(sc.Bytes(), &head)
	if headErr == nil {
		headErr = head.check()
	}
	line := 1
	var pending *LineError // a line that does not parse: torn if it is the last
	if headErr != nil {
		if !isTorn(headErr) {
			return out, &LineError{File: path, Line: 1, Err: headErr}
		}
		pending = &LineError{File: path, Line: 1, Err: headErr}
	}
	for sc.Scan() {
		line++
		if pending != nil {
			return streamFile{}, pending
		}
		var e Entry
		if err := decodeLine(sc.Bytes(), &e); err != nil {
			if pending = (&LineError{File: path, Line: line, Err: err}); !isTorn(err) {
				return streamFile{}, pending
			}
			continue
		}
		out.entries = append(out.entries, e)
	}
	if err := sc.Err(); err != nil {
		return streamFile{}, fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	if err := validateStream(path, out.entries); err != nil {
		return streamFile{}, err
	}
	if pending != nil {
		out.torn = pending.Line
		return out, nil
	}
	out.complete = *head.Complete && len(out.entries) == *head.Count
	return out, nil
}

// isTorn says whether a line's error is one of a line cut short: JSON that
// does not parse (a line that parses into the wrong types is malformed,
// wherever it is).
func isTorn(err error) bool {
	var syntax *json.SyntaxError
	return errors.As(err, &syntax)
}

// Load reads a cell directory's history.jsonl and stream.jsonl.
func Load(dir string) (History, error) {
	ops, err := ReadOps(dir + "/history.jsonl")
	if err != nil {
		return History{}, err
	}
	h := History{Ops: ops}
	f, err := readStream(dir + "/stream.jsonl")
	if err == nil {
		h.Stream, h.StreamComplete, h.StreamTorn = f.entries, f.complete, f.torn
	} else if !os.IsNotExist(err) {
		return History{}, err
	}
	return h, nil
}
