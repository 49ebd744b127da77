package run

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// newRunDir creates store/<run-id>/ and points store/latest at it. The id
// sorts by time and carries the seed, so a listing reads as a log.
func newRunDir(store string, seed uint64, now time.Time) (id, dir string, err error) {
	id = fmt.Sprintf("%s-s%d", now.UTC().Format("20060102T150405Z"), seed)
	dir = filepath.Join(store, id)
	for i := 2; ; i++ {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			break
		}
		id = fmt.Sprintf("%s-s%d-%d", now.UTC().Format("20060102T150405Z"), seed, i)
		dir = filepath.Join(store, id)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	latest := filepath.Join(store, "latest")
	tmp := latest + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Symlink(id, tmp); err != nil {
		return "", "", err
	}
	return id, dir, os.Rename(tmp, latest)
}
