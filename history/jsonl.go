package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
)

// WriteLines writes items to path as JSON lines, the format of every
// record the toolkit keeps beside a history (cluster-events.jsonl ...),
// whole or not at all: a run stopped mid-write leaves no torn file for
// ReadLines to refuse.
func WriteLines[T any](path string, items []T) error {
	return atomicfile.WriteWith(path, func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		for _, it := range items {
			if err := enc.Encode(it); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadLines loads what WriteLines wrote: none when path does not exist. A
// line that does not decode is an error naming path:line.
func ReadLines[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var it T
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, it)
	}
	return out, sc.Err()
}
