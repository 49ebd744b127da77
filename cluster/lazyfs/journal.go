package lazyfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// journal is what the backing directory would lose on a power loss: per
// file, the last-synced size and the bytes that unsynced writes overwrote;
// for the tree, every namespace change (create, unlink, rename) made since
// the last fsync of anything, with what is needed to undo it.
//
// It works on the backing paths alone (no FUSE), so the model is tested
// without a mount too. Every method takes j.mu: namespace changes hold it
// across their syscall, so the log is in the order the changes happened.
type journal struct {
	root  string // the backing tree: what the mount shows
	trash string // same file system: unlinked and displaced objects wait here until a commit

	mu      sync.Mutex
	files   map[uint64]*fileState // regular files written since their last sync, by backing inode
	log     []nsOp                // namespace changes since the last commit, oldest first
	seq     uint64                // names in trash
	scratch []byte                // changed's read buffer

	written int64 // bytes changed by writes since the mount, synced or not
	fsyncs  int64 // fsync, fdatasync (after every O_SYNC write too) and fsyncdir since the mount
}

// fileState is one dirty file. Bytes below synced that writes or a
// truncation replaced keep their synced contents in pre (sorted, disjoint,
// captured before the first change); bytes at or above synced were never
// synced and are cut off.
type fileState struct {
	synced int64
	pre    []extent
}

type extent struct {
	off  int64
	data []byte
}

func (e extent) end() int64 { return e.off + int64(len(e.data)) }

type opKind int

const (
	opCreate   opKind = iota // path was created (file, dir, link, node); undo removes it
	opUnlink                 // path (file or empty dir) moved to trash; undo moves it back
	opRename                 // path moved to path2, what path2 held moved to trash (if any); undo reverses both
	opExchange               // path and path2 swapped; undo swaps again
)

type nsOp struct {
	kind        opKind
	path, path2 string // relative to root
	trash       string // name in trash, "" for none
	trashIno    uint64 // inode of what went to trash, to forget its data state when purged
	newFile     bool   // opCreate of a new regular file: its data goes with it
}

func newJournal(root, trash string) *journal {
	return &journal{root: root, trash: trash, files: map[uint64]*fileState{}}
}

func (j *journal) abs(rel string) string { return filepath.Join(j.root, rel) }

// state returns the dirty state of ino, starting one at the file's current
// size (fd's) when the file was clean: a clean file is all durable.
func (j *journal) state(fd int, ino uint64) (*fileState, error) {
	if st, ok := j.files[ino]; ok {
		return st, nil
	}
	var s unix.Stat_t
	if err := unix.Fstat(fd, &s); err != nil {
		return nil, err
	}
	st := &fileState{synced: s.Size}
	j.files[ino] = st
	return st, nil
}

// capture saves, from fd, the synced bytes of [off, end) that no earlier
// change has saved yet. The first change of a byte captures it before it is
// changed, so what is saved is always the synced contents.
func (st *fileState) capture(fd int, off, end int64) error {
	end = min(end, st.synced)
	if off >= end {
		return nil
	}
	var gaps [][2]int64
	at := off
	for _, e := range st.pre {
		if e.end() <= at {
			continue
		}
		if e.off >= end {
			break
		}
		if e.off > at {
			gaps = append(gaps, [2]int64{at, e.off})
		}
		at = max(at, e.end())
	}
	if at < end {
		gaps = append(gaps, [2]int64{at, end})
	}
	for _, g := range gaps {
		buf := make([]byte, g[1]-g[0])
		n, err := unix.Pread(fd, buf, g[0])
		if err != nil {
			return err
		}
		// A file shorter than synced (cut by a truncation already
		// captured) has nothing more to save.
		if n > 0 {
			st.pre = append(st.pre, extent{g[0], buf[:n]})
		}
	}
	slices.SortFunc(st.pre, func(a, b extent) int { return int(a.off - b.off) })
	return nil
}

// beforeWrite captures what writing data at off will overwrite. It counts
// as written the span from the first byte that changes to the last: the
// writeback cache sends whole pages, so the unchanged rest of a page the
// program wrote into is sent again.
func (j *journal) beforeWrite(fd int, ino uint64, off int64, data []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	st, err := j.state(fd, ino)
	if err != nil {
		return err
	}
	n, err := j.changed(fd, off, data)
	if err != nil {
		return err
	}
	j.written += n
	return st.capture(fd, off, off+int64(len(data)))
}

// changed is the length of the span of data that differs from fd's bytes
// at off, bytes past the end of the file differing. j.mu is held: it reads
// into j.scratch.
func (j *journal) changed(fd int, off int64, data []byte) (int64, error) {
	if j.scratch == nil {
		j.scratch = make([]byte, 64<<10)
	}
	first, last := -1, -1
	for at := 0; at < len(data); {
		chunk := data[at:min(at+len(j.scratch), len(data))]
		got, err := unix.Pread(fd, j.scratch[:len(chunk)], off+int64(at))
		if err != nil {
			return 0, err
		}
		for i := range got {
			if j.scratch[i] != chunk[i] {
				if first < 0 {
					first = at + i
				}
				last = at + i
			}
		}
		at += got
		if got < len(chunk) { // the rest is past the end of the file
			if first < 0 {
				first = at
			}
			last = len(data) - 1
			break
		}
	}
	if first < 0 {
		return 0, nil
	}
	return int64(last - first + 1), nil
}

// beforeTruncate captures what cutting the file to size will remove.
func (j *journal) beforeTruncate(fd int, ino uint64, size int64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	st, err := j.state(fd, ino)
	if err != nil {
		return err
	}
	return st.capture(fd, size, st.synced)
}

// synced records an fsync or fdatasync of ino (or a write through an
// O_SYNC/O_DSYNC descriptor) that succeeded: its contents and size are
// durable, and so is every namespace change made so far, as when ext4 or
// XFS commit their journal on fsync.
func (j *journal) synced(ino uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.files, ino)
	j.fsyncs++
	return j.commitLocked()
}

// commit records a directory fsync: every namespace change made so far is
// durable.
func (j *journal) commit() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.fsyncs++
	return j.commitLocked()
}

// commitLocked drops the log and deletes what waited in trash: those
// unlinks are now durable. The data state of a deleted file goes too (its
// inode number may be reused).
func (j *journal) commitLocked() error {
	var errs []error
	for _, op := range j.log {
		if op.trash == "" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(j.trash, op.trash)); err != nil {
			errs = append(errs, err)
		}
		delete(j.files, op.trashIno)
	}
	j.log = j.log[:0]
	return errors.Join(errs...)
}

// createdLocked logs a new name at rel. A new regular file (newFile; not a
// hard link) has synced size 0: none of its data is durable until synced.
func (j *journal) createdLocked(rel string, ino uint64, newFile bool) {
	j.log = append(j.log, nsOp{kind: opCreate, path: rel, newFile: newFile})
	if newFile {
		j.files[ino] = &fileState{}
	}
}

// toTrashLocked moves rel into trash and returns its name there and inode.
func (j *journal) toTrashLocked(rel string) (string, uint64, error) {
	var st unix.Stat_t
	if err := unix.Lstat(j.abs(rel), &st); err != nil {
		return "", 0, err
	}
	j.seq++
	name := fmt.Sprintf("%d-%d", st.Ino, j.seq)
	if err := os.Rename(j.abs(rel), filepath.Join(j.trash, name)); err != nil {
		return "", 0, err
	}
	return name, st.Ino, nil
}

// unlink removes rel (a file, or an empty directory when dir), keeping it in
// trash so a power loss before the next commit can put it back.
func (j *journal) unlink(rel string, dir bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	var st unix.Stat_t
	if err := unix.Lstat(j.abs(rel), &st); err != nil {
		return err
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	switch {
	case dir && !isDir:
		return syscall.ENOTDIR
	case !dir && isDir:
		return syscall.EISDIR
	case dir:
		names, err := readNames(j.abs(rel))
		if err != nil {
			return err
		}
		if len(names) > 0 {
			return syscall.ENOTEMPTY
		}
	}
	name, ino, err := j.toTrashLocked(rel)
	if err != nil {
		return err
	}
	j.log = append(j.log, nsOp{kind: opUnlink, path: rel, trash: name, trashIno: ino})
	return nil
}

// rename moves from to to. What to held is kept in trash (a hard link for
// a file, the directory itself for an empty one) so the rename can be
// undone. flags: 0, RENAME_NOREPLACE or RENAME_EXCHANGE.
func (j *journal) rename(from, to string, flags uint32) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if flags&unix.RENAME_EXCHANGE != 0 {
		if err := unix.Renameat2(unix.AT_FDCWD, j.abs(from), unix.AT_FDCWD, j.abs(to), unix.RENAME_EXCHANGE); err != nil {
			return err
		}
		j.log = append(j.log, nsOp{kind: opExchange, path: from, path2: to})
		return nil
	}
	if flags&^unix.RENAME_NOREPLACE != 0 {
		return syscall.EINVAL // RENAME_WHITEOUT: overlay file systems only
	}
	var src, dst unix.Stat_t
	if err := unix.Lstat(j.abs(from), &src); err != nil {
		return err
	}
	op := nsOp{kind: opRename, path: from, path2: to}
	err := unix.Lstat(j.abs(to), &dst)
	switch {
	case err == nil && flags&unix.RENAME_NOREPLACE != 0:
		return syscall.EEXIST
	case err == nil && dst.Ino == src.Ino:
		return nil // the same file: rename does nothing
	case err == nil:
		if op.trash, op.trashIno, err = j.displaceLocked(to, &src, &dst); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := os.Rename(j.abs(from), j.abs(to)); err != nil {
		if op.trash != "" {
			j.restoreDisplacedLocked(to, op.trash, &dst)
		}
		return err
	}
	j.log = append(j.log, op)
	return nil
}

// displaceLocked keeps what a rename onto to will replace: a hard link to
// a file (the rename then drops only the name), or the directory itself,
// which must be empty and a directory's target.
func (j *journal) displaceLocked(to string, src, dst *unix.Stat_t) (string, uint64, error) {
	srcDir := src.Mode&unix.S_IFMT == unix.S_IFDIR
	dstDir := dst.Mode&unix.S_IFMT == unix.S_IFDIR
	switch {
	case srcDir && !dstDir:
		return "", 0, syscall.ENOTDIR
	case !srcDir && dstDir:
		return "", 0, syscall.EISDIR
	case dstDir:
		names, err := readNames(j.abs(to))
		if err != nil {
			return "", 0, err
		}
		if len(names) > 0 {
			return "", 0, syscall.ENOTEMPTY
		}
		return j.toTrashLocked(to)
	}
	j.seq++
	name := fmt.Sprintf("%d-%d", dst.Ino, j.seq)
	if err := os.Link(j.abs(to), filepath.Join(j.trash, name)); err != nil {
		return "", 0, err
	}
	return name, dst.Ino, nil
}

// restoreDisplacedLocked undoes displaceLocked after a failed rename.
func (j *journal) restoreDisplacedLocked(to, name string, dst *unix.Stat_t) {
	p := filepath.Join(j.trash, name)
	if dst.Mode&unix.S_IFMT == unix.S_IFDIR {
		_ = os.Rename(p, j.abs(to))
		return
	}
	_ = os.Remove(p)
}

// Written and Fsyncs since the mount.
func (j *journal) counters() (written, fsyncs int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.written, j.fsyncs
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
