// Package lazyfs serves a directory through FUSE and remembers what has not
// been made durable, so that a power loss can be simulated for real, the way
// LazyFS does (github.com/dsrhaslab/lazyfs; Ramos et al., "When Amnesia
// Strikes", VLDB 2024). The FUSE server runs in this process
// (github.com/hanwen/go-fuse/v2, a loopback onto a backing directory); a node
// container bind-mounts the mountpoint as its store.
//
// What survives PowerLoss:
//
//   - File data: a file's bytes and size as of its last fsync or fdatasync
//     (or of a write through an O_SYNC or O_DSYNC descriptor). Bytes that
//     later writes or truncations replaced get their synced contents back,
//     and the file is cut back to its synced size.
//   - The namespace: creates (files, directories, symlinks, hard links,
//     nodes), unlinks, rmdirs and renames (of files and directories, also
//     over an existing target) are undone, newest first, when they were
//     made after the last fsync of anything. One fsync, of a file or a
//     directory, commits every namespace change made before it, as the
//     journal commit of ext4 (data=ordered) or XFS does. So a file that was
//     created, committed by some other fsync, and never synced itself comes
//     back empty, as on ext4 with delayed allocation.
//
// Not modelled: mode, owner and times (a power loss keeps them); background
// writeback and periodic journal commits (a kernel writes dirty pages back
// after about 30 s and ext4 commits every 5 s; here, as in LazyFS, nothing
// is durable without an fsync, however old); torn or reordered writes (a
// write survives whole or not at all). Refused: xattrs (EOPNOTSUPP) and
// O_TMPFILE. Bytes overwritten in place, or truncated, below a file's
// synced size are kept in memory until the next sync; an append, the part
// of its first page the writeback cache sends again.
//
// Every mount has type FSType and names its owner as its source, so Sweep can
// find the mounts of a harness that died (their FUSE server is gone: they
// answer "transport endpoint is not connected") and unmount them.
package lazyfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

const subtype = "jschaos-lazyfs"

// FSType is the file system type of every mount, as /proc/self/mountinfo
// shows it.
const FSType = "fuse." + subtype

// Options tune a mount.
type Options struct {
	// Owner names who mounted (a host/pid/start label); Sweep asks whether
	// it is alive. Empty is an owner that is never alive.
	Owner string
	// UnmountTimeout bounds an unmount: the FUSE connection lives until
	// nothing uses the mount (a node container's bind mount included).
	// Default 10 s.
	UnmountTimeout time.Duration
}

// FS is one mount.
type FS struct {
	mountpoint, root, trash string
	opts                    Options
	j                       *journal

	mu     sync.Mutex
	server *fuse.Server // nil while unmounted
}

// Mount serves dir/root at mountpoint; dir/trash holds what an undoable
// unlink removed. Both are made if missing, and what dir/root already holds
// counts as durable. dir must be on one file system, outside mountpoint.
func Mount(mountpoint, dir string, opts Options) (*FS, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	f := &FS{mountpoint: mountpoint, root: filepath.Join(dir, "root"), trash: filepath.Join(dir, "trash"), opts: opts}
	for _, d := range []string{mountpoint, f.root, f.trash} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	f.j = newJournal(f.root, f.trash)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.mountLocked(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *FS) mountLocked() error {
	root, err := newRoot(f.root, f.j)
	if err != nil {
		return err
	}
	// The kernel caches entries and attributes for a second: every change
	// comes through this mount, and PowerLoss remounts, which drops them.
	sec := time.Second
	srv, err := fs.Mount(f.mountpoint, root, &fs.Options{
		MountOptions: fuse.MountOptions{
			AllowOther:  true, // the node container's process is another user to FUSE
			FsName:      fsName(f.opts.Owner),
			Name:        subtype,
			DirectMount: true, // as root, mount(2) itself; else fusermount
			// Without xattrs the kernel stops asking for security.capability
			// before every write (file_remove_privs): ENOSYS turns getxattr
			// off for the connection.
			DisableXAttrs: true,
			// Writes land in the kernel's page cache and reach us as page
			// flushes: before FUSE_FSYNC (fuse_fsync writes and waits first)
			// and FUSE_FLUSH (close, a killed process's too), or in the
			// background. The journal sees every byte before it reaches the
			// backing file either way.
			ExtraCapabilities: fuse.CAP_WRITEBACK_CACHE,
		},
		EntryTimeout: &sec, AttrTimeout: &sec, NegativeTimeout: &sec,
	})
	if err != nil {
		return fmt.Errorf("mount %s: %w", f.mountpoint, err)
	}
	f.server = srv
	return nil
}

// fsName is the mount's source: the owner, so Sweep can read it back.
func fsName(owner string) string {
	if owner == "" {
		return subtype
	}
	return owner
}

// Mountpoint is where the files are served.
func (f *FS) Mountpoint() string { return f.mountpoint }

// Mounted says whether the files are being served (false after a failed
// remount, or after Close).
func (f *FS) Mounted() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.server != nil
}

// Counters are the bytes changed by writes and the fsyncs seen since the
// last mount.
func (f *FS) Counters() (written, fsyncs int64) { return f.j.counters() }

// PowerLoss simulates a power loss: it unmounts, rolls the backing tree
// back to what was durable (see the package doc) and mounts again, so the
// next user sees the surviving files. Whoever used the mount must be dead
// already (a killed node): an unmount that cannot finish is an error, and
// nothing is rolled back.
func (f *FS) PowerLoss() (Loss, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.unmountLocked(); err != nil {
		return Loss{}, fmt.Errorf("power loss: %w", err)
	}
	loss, err := f.j.rollback()
	if merr := f.mountLocked(); merr != nil {
		err = errors.Join(err, merr)
	}
	return loss, err
}

// Wipe deletes every file, durable or not, and mounts the empty store again.
// As with PowerLoss, nothing may be using the mount.
func (f *FS) Wipe() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.unmountLocked(); err != nil {
		return fmt.Errorf("wipe: %w", err)
	}
	err := f.j.reset()
	return errors.Join(err, f.mountLocked())
}

// Close unmounts, lazily (detached) if the mount is still busy. It is safe
// to call more than once.
func (f *FS) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.unmountLocked()
	if err == nil {
		return nil
	}
	if derr := detach(f.mountpoint); derr != nil {
		return errors.Join(err, derr)
	}
	f.server = nil
	return nil
}

func (f *FS) unmountLocked() error {
	if f.server == nil {
		return nil
	}
	timeout := f.opts.UnmountTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	srv := f.server
	done := make(chan error, 1)
	go func() { done <- srv.Unmount() }() // returns once the server has stopped serving
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("unmount %s: %w", f.mountpoint, err)
		}
	case <-time.After(timeout):
		return fmt.Errorf("unmount %s: the FUSE connection is still in use after %s", f.mountpoint, timeout)
	}
	f.server = nil
	return nil
}
