// Package atomicfile writes a file whole or not at all: through a temp
// file in the same folder, then a rename. A reader beside a running cell
// (`chaos report`, a browser on the store) or a run killed mid-write never
// sees half a results.json or half a page.
package atomicfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// Write writes b to path, mode 0644.
func Write(path string, b []byte) error {
	return WriteWith(path, func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// WriteWith writes what f writes to path, mode 0644, buffered. If f or the
// write fails, path is left as it was and no temp file remains.
func WriteWith(path string, f func(*bufio.Writer) error) (err error) {
	fh, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			fh.Close()
			os.Remove(fh.Name())
		}
	}()
	w := bufio.NewWriterSize(fh, 1<<16)
	if err = f(w); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = fh.Chmod(0o644); err != nil {
		return err
	}
	if err = fh.Close(); err != nil {
		return err
	}
	return os.Rename(fh.Name(), path)
}

// WriteJSON writes v as JSON to path, whole or not at all.
func WriteJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return Write(path, b)
}

// ReadJSON reads the JSON at path into v. ok is false, and err nil, when
// there is no such file (a cell that stopped before writing it).
func ReadJSON(path string, v any) (ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(b, v)
}
