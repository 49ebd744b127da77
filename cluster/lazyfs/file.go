package lazyfs

import (
	"context"
	"fmt"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// handle is an open file. It wraps the loopback's handle but is not one:
// it must not offer PassthroughFd (the kernel would then write to the
// backing file itself, past the journal) nor Writev or CopyFileRange, so
// every write comes through Write.
type handle struct {
	lf  *fs.LoopbackFile
	fd  int    // the backing descriptor, owned by lf
	rfd int    // a readable one for capturing synced bytes: fd, or our own when fd is write-only
	ino uint64 // the backing inode
	j   *journal
}

var (
	_ fs.FileReader    = (*handle)(nil)
	_ fs.FileWriter    = (*handle)(nil)
	_ fs.FileFsyncer   = (*handle)(nil)
	_ fs.FileFlusher   = (*handle)(nil)
	_ fs.FileReleaser  = (*handle)(nil)
	_ fs.FileLseeker   = (*handle)(nil)
	_ fs.FileGetlker   = (*handle)(nil)
	_ fs.FileSetlker   = (*handle)(nil)
	_ fs.FileSetlkwer  = (*handle)(nil)
	_ fs.FileAllocater = (*handle)(nil)
)

// An O_SYNC or O_DSYNC write needs no case of its own: the kernel follows
// it with FUSE_FSYNC (generic_write_sync, fs/fuse/file.c). Nor could it
// have one with the writeback cache, which flushes any writer's pages
// through whichever handle was opened for writing last.
func newHandle(fh fs.FileHandle, flags uint32, j *journal) (*handle, syscall.Errno) {
	lf, ok := fh.(*fs.LoopbackFile)
	if !ok {
		return nil, syscall.EIO
	}
	// The descriptor lives as long as lf, which h keeps until Release.
	fd, ok := lf.PassthroughFd()
	if !ok {
		lf.Release(context.Background())
		return nil, syscall.EBADF
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		lf.Release(context.Background())
		return nil, fs.ToErrno(err)
	}
	h := &handle{lf: lf, fd: fd, rfd: fd, ino: st.Ino, j: j}
	if flags&unix.O_ACCMODE == unix.O_WRONLY {
		rfd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			lf.Release(context.Background())
			return nil, fs.ToErrno(err)
		}
		h.rfd = rfd
	}
	return h, 0
}

// unwrap gives the loopback its own handle back.
func unwrap(f fs.FileHandle) fs.FileHandle {
	if h, ok := f.(*handle); ok {
		return h.lf
	}
	return f
}

// Read serves a write-only handle too: with the writeback cache the kernel
// reads a page before writing part of it, on whatever handle wrote.
func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h.rfd == h.fd {
		return h.lf.Read(ctx, dest, off)
	}
	n, err := unix.Pread(h.rfd, dest, off)
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	return fuse.ReadResultData(dest[:n]), 0
}

// Write captures the synced bytes it overwrites, then writes through.
func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	if err := h.j.beforeWrite(h.rfd, h.ino, off, data); err != nil {
		return 0, fs.ToErrno(err)
	}
	return h.lf.Write(ctx, data, off)
}

// Fsync (and fdatasync, FUSE_FSYNC_FDATASYNC in flags) syncs the backing
// file for real, so the layer costs what the disk costs, then records it.
func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	if errno := h.lf.Fsync(ctx, flags); errno != 0 {
		return errno
	}
	return fs.ToErrno(h.j.synced(h.ino))
}

// Allocate can change data (punching holes, zeroing ranges) and size, so
// its range is captured like a write's.
func (h *handle) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	h.j.mu.Lock()
	st, err := h.j.state(h.rfd, h.ino)
	if err == nil {
		err = st.capture(h.rfd, int64(off), int64(off+size))
	}
	h.j.mu.Unlock()
	if err != nil {
		return fs.ToErrno(err)
	}
	return h.lf.Allocate(ctx, off, size, mode)
}

func (h *handle) Flush(ctx context.Context) syscall.Errno { return h.lf.Flush(ctx) }
func (h *handle) Release(ctx context.Context) syscall.Errno {
	if h.rfd != h.fd {
		unix.Close(h.rfd)
	}
	return h.lf.Release(ctx)
}

func (h *handle) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	return h.lf.Lseek(ctx, off, whence)
}

func (h *handle) Getlk(ctx context.Context, owner uint64, lk *fuse.FileLock, flags uint32, out *fuse.FileLock) syscall.Errno {
	return h.lf.Getlk(ctx, owner, lk, flags, out)
}

func (h *handle) Setlk(ctx context.Context, owner uint64, lk *fuse.FileLock, flags uint32) syscall.Errno {
	return h.lf.Setlk(ctx, owner, lk, flags)
}

func (h *handle) Setlkw(ctx context.Context, owner uint64, lk *fuse.FileLock, flags uint32) syscall.Errno {
	return h.lf.Setlkw(ctx, owner, lk, flags)
}
