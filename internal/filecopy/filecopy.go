// Package filecopy copies one file to a path that does not exist yet.
package filecopy

import (
	"io"
	"io/fs"
	"os"
)

// New copies src to dst, created with mode; it fails if dst exists, so a
// copy never overwrites what another process made.
func New(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
