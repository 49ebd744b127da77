package lazyfs

import (
	"context"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// node is go-fuse's loopback node with every change that a power loss could
// undo routed through the journal. Reads, attributes and locks pass
// straight through (xattrs are off for the mount). Mode, owner and times
// are not journalled: a power loss keeps them as they are.
type node struct {
	fs.LoopbackNode
	j *journal
}

func newRoot(backing string, j *journal) (fs.InodeEmbedder, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(backing, &st); err != nil {
		return nil, err
	}
	lr := &fs.LoopbackRoot{Path: backing, Dev: uint64(st.Dev)}
	//lint:ignore SA1019 NodeWrapChilder would have to copy an Inode; NewNode builds ours directly.
	lr.NewNode = func(r *fs.LoopbackRoot, _ *fs.Inode, _ string, _ *syscall.Stat_t) fs.InodeEmbedder {
		return &node{LoopbackNode: fs.LoopbackNode{RootData: r}, j: j}
	}
	root := lr.NewNode(lr, nil, "", &st)
	lr.RootNode = root
	return root, nil
}

// rel is the path of child name relative to the backing root.
func (n *node) rel(name string) string { return filepath.Join(n.Path(n.Root()), name) }

func (n *node) self() string { return n.Path(n.Root()) }

var (
	_ fs.NodeCreater        = (*node)(nil)
	_ fs.NodeOpener         = (*node)(nil)
	_ fs.NodeOpendirHandler = (*node)(nil)
	_ fs.NodeMkdirer        = (*node)(nil)
	_ fs.NodeMknoder        = (*node)(nil)
	_ fs.NodeSymlinker      = (*node)(nil)
	_ fs.NodeLinker         = (*node)(nil)
	_ fs.NodeUnlinker       = (*node)(nil)
	_ fs.NodeRmdirer        = (*node)(nil)
	_ fs.NodeRenamer        = (*node)(nil)
	_ fs.NodeSetattrer      = (*node)(nil)
	_ fs.NodeGetattrer      = (*node)(nil)
	_ fs.NodeTmpfiler       = (*node)(nil)
)

// Create makes a new file: its name is undone, and its data lost, by a
// power loss before the next commit. An O_CREAT open of a file that exists
// (a race with another create) truncates it only with O_TRUNC, captured.
func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	n.j.mu.Lock()
	defer n.j.mu.Unlock()
	rel := n.rel(name)
	var before unix.Stat_t
	existed := unix.Lstat(n.j.abs(rel), &before) == nil
	if existed && flags&syscall.O_TRUNC != 0 {
		if err := n.j.truncatePathLocked(rel, 0); err != nil {
			return nil, nil, 0, fs.ToErrno(err)
		}
	}
	ch, fh, ff, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	h, errno := newHandle(fh, flags, n.j)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	if !existed {
		n.j.createdLocked(rel, h.ino, true)
	}
	return ch, h, ff, 0
}

// Open wraps the loopback handle; O_TRUNC is captured first.
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_TRUNC != 0 {
		n.j.mu.Lock()
		err := n.j.truncatePathLocked(n.self(), 0)
		n.j.mu.Unlock()
		if err != nil {
			return nil, 0, fs.ToErrno(err)
		}
	}
	fh, ff, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	h, errno := newHandle(fh, flags, n.j)
	if errno != 0 {
		return nil, 0, errno
	}
	return h, ff, 0
}

// OpendirHandle gives a directory handle whose fsync commits the journal.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, ff, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &dirHandle{DirStream: fh.(fs.DirStream), j: n.j}, ff, 0
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return n.created(name, false, func() (*fs.Inode, syscall.Errno) { return n.LoopbackNode.Mkdir(ctx, name, mode, out) })
}

func (n *node) Mknod(ctx context.Context, name string, mode, dev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	regular := mode&syscall.S_IFMT == syscall.S_IFREG || mode&syscall.S_IFMT == 0
	return n.created(name, regular, func() (*fs.Inode, syscall.Errno) { return n.LoopbackNode.Mknod(ctx, name, mode, dev, out) })
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return n.created(name, false, func() (*fs.Inode, syscall.Errno) { return n.LoopbackNode.Symlink(ctx, target, name, out) })
}

// Link adds a name to an existing file: undoing it removes the name only.
func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if t, ok := target.(*node); ok {
		target = &t.LoopbackNode // the loopback recognises its own type only
	}
	return n.created(name, false, func() (*fs.Inode, syscall.Errno) { return n.LoopbackNode.Link(ctx, target, name, out) })
}

// created runs a loopback create under the journal's lock and logs it.
func (n *node) created(name string, newFile bool, create func() (*fs.Inode, syscall.Errno)) (*fs.Inode, syscall.Errno) {
	n.j.mu.Lock()
	defer n.j.mu.Unlock()
	ch, errno := create()
	if errno != 0 {
		return nil, errno
	}
	rel := n.rel(name)
	var st unix.Stat_t
	if err := unix.Lstat(n.j.abs(rel), &st); err != nil {
		return nil, fs.ToErrno(err)
	}
	n.j.createdLocked(rel, st.Ino, newFile)
	return ch, 0
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	return fs.ToErrno(n.j.unlink(n.rel(name), false))
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	return fs.ToErrno(n.j.unlink(n.rel(name), true))
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*node)
	if !ok {
		return syscall.EXDEV
	}
	return fs.ToErrno(n.j.rename(n.rel(name), np.rel(newName), flags))
}

// Tmpfile (O_TMPFILE) is refused: an unnamed file that a later link names
// would need its own durability rules. Callers fall back to a named file.
func (n *node) Tmpfile(ctx context.Context, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EOPNOTSUPP
}

// Setattr captures a size change (truncate or ftruncate) before it is made;
// the loopback gets its own handle back.
func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok {
		var err error
		if h, isOurs := f.(*handle); isOurs {
			err = n.j.beforeTruncate(h.rfd, h.ino, int64(size))
		} else {
			n.j.mu.Lock()
			err = n.j.truncatePathLocked(n.self(), int64(size))
			n.j.mu.Unlock()
		}
		if err != nil {
			return fs.ToErrno(err)
		}
	}
	return n.LoopbackNode.Setattr(ctx, unwrap(f), in, out)
}

func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.LoopbackNode.Getattr(ctx, unwrap(f), out)
}

func (n *node) Statx(ctx context.Context, f fs.FileHandle, flags, mask uint32, out *fuse.StatxOut) syscall.Errno {
	return n.LoopbackNode.Statx(ctx, unwrap(f), flags, mask, out)
}

// truncatePathLocked captures a truncation of the file at rel to size.
func (j *journal) truncatePathLocked(rel string, size int64) error {
	fd, err := unix.Open(j.abs(rel), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil
	}
	fst, err := j.state(fd, st.Ino)
	if err != nil {
		return err
	}
	return fst.capture(fd, size, fst.synced)
}

// dirHandle is the loopback's directory stream with fsyncdir committing the
// journal: a directory fsync makes the namespace changes so far durable.
type dirHandle struct {
	fs.DirStream
	j *journal
}

var (
	_ fs.FileFsyncdirer     = (*dirHandle)(nil)
	_ fs.FileReaddirenter   = (*dirHandle)(nil)
	_ fs.FileSeekdirer      = (*dirHandle)(nil)
	_ fs.FileReleasedirer   = (*dirHandle)(nil)
	_ fs.FileHandle         = (*dirHandle)(nil)
	_ fs.NodeStatxer        = (*node)(nil)
	_ fs.NodeLookuper       = (*node)(nil)
	_ fs.NodeReaddirer      = (*node)(nil)
	_ fs.NodeGetxattrer     = (*node)(nil)
	_ fs.NodeCopyFileRanger = (*node)(nil)
)

func (d *dirHandle) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	if fd, ok := d.DirStream.(fs.FileFsyncdirer); ok {
		if errno := fd.Fsyncdir(ctx, flags); errno != 0 {
			return errno
		}
	}
	return fs.ToErrno(d.j.commit())
}

func (d *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	if r, ok := d.DirStream.(fs.FileReaddirenter); ok {
		return r.Readdirent(ctx)
	}
	if !d.HasNext() {
		return nil, 0
	}
	e, errno := d.Next()
	return &e, errno
}

func (d *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if s, ok := d.DirStream.(fs.FileSeekdirer); ok {
		return s.Seekdir(ctx, off)
	}
	return syscall.ENOTSUP
}

func (d *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	if r, ok := d.DirStream.(fs.FileReleasedirer); ok {
		r.Releasedir(ctx, flags)
		return
	}
	d.Close()
}
