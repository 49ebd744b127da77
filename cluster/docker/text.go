package docker

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/jetstream-chaos/jetstream-chaos/internal/filecopy"
)

// Why the nodes run the server binary from a host tmpfs: a node at its
// memory limit with its executable's pages charged to its own cgroup does
// not die. Reclaim evicts those pages, the next instruction faults them
// back in, and the kernel counts that as progress, so the OOM killer
// waits. Measured on this toolkit's seed-loop-2gib preset (2 GiB catch-up,
// 1 GiB limit, cgroup v1, fuse-overlayfs, which gives each container its
// own page cache of the image's files): the target sat at 1019 MiB RSS
// with no page cache left, about 2,000 major faults a second and /healthz
// timing out, for 40 to 100 s before each OOM kill, and two runs of two
// gave one kill in 3 minutes and no crash loop. Run from a host tmpfs,
// the binary's pages are shared memory written by the host: not charged
// to the container and, with no swap, never evicted. The same preset then
// looped (3 OOM kills 19, 45 and 69 s after the restart, no major faults).
// The limit then holds the server's own memory and its store's page
// cache, not its 24 MB executable.

// textRoot holds a directory per owning process (see owner.go) and in it
// one per cluster, so that Sweep can remove a dead run's.
const textRoot = "/dev/shm/jetstream-chaos"

// textMount is where a node sees its cluster's directory; the binary keeps
// its name, so the process is still called nats-server.
const textMount = "/text"

// pinText copies server into a new directory of textRoot for cluster id
// and returns the directory.
func pinText(server, id string) (string, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(filepath.Dir(textRoot), &st); err != nil {
		return "", err
	}
	if st.Type != unix.TMPFS_MAGIC {
		return "", fmt.Errorf("%s is not a tmpfs", filepath.Dir(textRoot))
	}
	dir := filepath.Join(textRoot, url.PathEscape(selfOwner), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := filecopy.New(server, filepath.Join(dir, "nats-server"), 0o755); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// unpinText removes a cluster's directory, and its owner's once empty.
func unpinText(dir string) error {
	if dir == "" {
		return nil
	}
	err := os.RemoveAll(dir)
	os.Remove(filepath.Dir(dir)) // fails while the process has other clusters
	return err
}

// sweepText removes the directories of textRoot whose owner is gone and
// adds them to n.
func sweepText(n *int) error {
	entries, err := os.ReadDir(textRoot)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR) { // none made, or not ours (pinText then fails too)
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		owner, err := url.PathUnescape(e.Name())
		if err != nil || ownerAlive(owner) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(textRoot, e.Name())); err != nil {
			errs = append(errs, err)
			continue
		}
		*n++
	}
	return errors.Join(errs...)
}
