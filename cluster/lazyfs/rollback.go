package lazyfs

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Loss is what a power loss threw away.
type Loss struct {
	Bytes    int64 `json:"bytes"`    // unsynced bytes discarded: cut off, restored over, or in removed files
	Files    int   `json:"files"`    // files cut back to their synced size or contents
	Removed  int   `json:"removed"`  // names created since the last commit, removed
	Restored int   `json:"restored"` // unlinks and renames since the last commit, undone
	Written  int64 `json:"written"`  // bytes changed by writes through the mount since it was mounted
	Fsyncs   int64 `json:"fsyncs"`   // fsyncs (of files and directories) since it was mounted
	// Largest names the files that lost the most, relative to the
	// mount, as "path (N bytes)", largest first, at most 3.
	Largest []string `json:"largest,omitempty"`
}

func (l Loss) String() string {
	return fmt.Sprintf("%d bytes discarded (%d files rolled back, %d creates and %d unlinks/renames undone; %d bytes written, %d fsyncs since mount)",
		l.Bytes, l.Files, l.Removed, l.Restored, l.Written, l.Fsyncs)
}

// rollback turns the backing tree into what survived the power loss: the
// namespace changes since the last commit are undone, newest first, then
// every dirty file gets its synced bytes back and is cut to its synced
// size. Nothing may use the tree meanwhile (the mount is down). Afterwards
// everything is durable: the journal starts over.
func (j *journal) rollback() (Loss, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	loss := Loss{Written: j.written, Fsyncs: j.fsyncs}
	lost := map[string]int64{}
	var errs []error
	for i := len(j.log) - 1; i >= 0; i-- {
		if err := j.undoLocked(j.log[i], &loss, lost); err != nil {
			errs = append(errs, err)
		}
	}
	if len(j.files) > 0 {
		if err := j.restoreFilesLocked(&loss, lost); err != nil {
			errs = append(errs, err)
		}
	}
	loss.Largest = largest(lost, 3)
	if err := emptyDir(j.trash); err != nil {
		errs = append(errs, err)
	}
	j.log, j.files, j.written, j.fsyncs = nil, map[uint64]*fileState{}, 0, 0
	return loss, errors.Join(errs...)
}

func (j *journal) undoLocked(op nsOp, loss *Loss, lost map[string]int64) error {
	switch op.kind {
	case opCreate:
		p := j.abs(op.path)
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return fmt.Errorf("undo create %s: %w", op.path, err)
		}
		if op.newFile {
			loss.Bytes += st.Size
			if st.Size > 0 {
				lost[op.path] += st.Size
			}
			delete(j.files, st.Ino)
		}
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("undo create %s: %w", op.path, err)
		}
		loss.Removed++
	case opUnlink:
		if err := os.Rename(filepath.Join(j.trash, op.trash), j.abs(op.path)); err != nil {
			return fmt.Errorf("undo unlink %s: %w", op.path, err)
		}
		loss.Restored++
	case opRename:
		if err := os.Rename(j.abs(op.path2), j.abs(op.path)); err != nil {
			return fmt.Errorf("undo rename %s -> %s: %w", op.path, op.path2, err)
		}
		if op.trash != "" {
			if err := os.Rename(filepath.Join(j.trash, op.trash), j.abs(op.path2)); err != nil {
				return fmt.Errorf("undo rename %s -> %s: put back %s: %w", op.path, op.path2, op.path2, err)
			}
		}
		loss.Restored++
	case opExchange:
		if err := unix.Renameat2(unix.AT_FDCWD, j.abs(op.path), unix.AT_FDCWD, j.abs(op.path2), unix.RENAME_EXCHANGE); err != nil {
			return fmt.Errorf("undo exchange %s <-> %s: %w", op.path, op.path2, err)
		}
		loss.Restored++
	}
	return nil
}

// restoreFilesLocked finds every dirty file in the tree by inode and puts
// it back to its synced state.
func (j *journal) restoreFilesLocked(loss *Loss, lost map[string]int64) error {
	done := map[uint64]bool{}
	var errs []error
	err := filepath.WalkDir(j.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			errs = append(errs, err)
			return nil
		}
		fst, ok := j.files[st.Ino]
		if !ok || done[st.Ino] {
			return nil
		}
		done[st.Ino] = true
		n, err := fst.restore(p, st.Size)
		if err != nil {
			errs = append(errs, fmt.Errorf("roll back %s: %w", p, err))
		}
		if n > 0 {
			loss.Bytes += n
			loss.Files++
			rel, _ := filepath.Rel(j.root, p)
			lost[rel] += n
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}

// restore writes the synced bytes back and cuts the file to its synced
// size. It returns how many unsynced bytes that discarded: those cut off
// and those restored that differed (the writeback cache rewrites whole
// pages, so a captured extent can hold bytes that never changed).
func (st *fileState) restore(path string, size int64) (int64, error) {
	discarded := max(0, size-st.synced)
	if len(st.pre) == 0 && size == st.synced {
		return 0, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	for _, e := range st.pre {
		cur := make([]byte, len(e.data))
		n, err := f.ReadAt(cur, e.off)
		if err != nil && !errors.Is(err, io.EOF) {
			return discarded, err
		}
		discarded += int64(len(e.data) - n) // cut by a truncation
		for i := range n {
			if cur[i] != e.data[i] {
				discarded++
			}
		}
		if _, err := f.WriteAt(e.data, e.off); err != nil {
			return discarded, err
		}
	}
	if err := f.Truncate(st.synced); err != nil {
		return discarded, err
	}
	return discarded, f.Close()
}

// largest lists the n paths that lost the most, largest first.
func largest(lost map[string]int64, n int) []string {
	paths := slices.Collect(maps.Keys(lost))
	slices.SortFunc(paths, func(a, b string) int {
		if c := cmp.Compare(lost[b], lost[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var out []string
	for _, p := range paths[:min(n, len(paths))] {
		out = append(out, fmt.Sprintf("%s (%d bytes)", p, lost[p]))
	}
	return out
}

// reset forgets everything and deletes the tree: a wiped store.
func (j *journal) reset() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.log, j.files, j.written, j.fsyncs = nil, map[uint64]*fileState{}, 0, 0
	return errors.Join(emptyDir(j.root), emptyDir(j.trash))
}

// emptyDir removes everything inside dir, keeping dir.
func emptyDir(dir string) error {
	names, err := readNames(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
