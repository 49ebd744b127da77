package lazyfs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

var (
	probeOnce sync.Once
	probeErr  error
)

// Available says in one line why FUSE mounts cannot be made here, or nil. It
// probes once per process: /dev/fuse, and a real mount (allow_other, as a
// node container needs) of an empty directory.
func Available() error {
	probeOnce.Do(func() { probeErr = probe() })
	return probeErr
}

func probe() error {
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("FUSE is unavailable: cannot open /dev/fuse: %v (a container needs --device /dev/fuse and CAP_SYS_ADMIN)", err)
	}
	unix.Close(fd)
	if os.Geteuid() != 0 && !userAllowOther() {
		return errors.New("FUSE is unavailable: a mount the node containers can use needs allow_other, which fusermount allows only with user_allow_other in /etc/fuse.conf (or run as root)")
	}
	dir, err := os.MkdirTemp("", "lazyfs-probe-")
	if err != nil {
		return fmt.Errorf("FUSE probe: %v", err)
	}
	defer os.Remove(dir)
	srv, err := fs.Mount(dir, &fs.Inode{}, &fs.Options{MountOptions: fuse.MountOptions{
		AllowOther: true, FsName: subtype + "-probe", Name: subtype, DirectMount: true,
	}})
	if err != nil {
		return fmt.Errorf("FUSE is unavailable: a test mount failed: %v", err)
	}
	if err := srv.Unmount(); err != nil {
		return fmt.Errorf("FUSE is unavailable: a test mount did not unmount: %v", err)
	}
	return nil
}

func userAllowOther() bool {
	b, err := os.ReadFile("/etc/fuse.conf")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "user_allow_other" {
			return true
		}
	}
	return false
}

// MountInfo is one lazyfs mount of this mount namespace.
type MountInfo struct {
	Mountpoint string
	Owner      string // the mount's source; "" when mounted without one
}

// Mounts lists the lazyfs mounts, stale ones included, from
// /proc/self/mountinfo.
func Mounts() ([]MountInfo, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseMountinfo(f)
}

// parseMountinfo reads proc(5) mountinfo lines: ID parent major:minor root
// mountpoint options [optional...] - fstype source superoptions.
func parseMountinfo(r io.Reader) ([]MountInfo, error) {
	var out []MountInfo
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || sep+2 >= len(fields) || fields[sep+1] != FSType {
			continue
		}
		owner := unescapeMount(fields[sep+2])
		if owner == subtype {
			owner = ""
		}
		out = append(out, MountInfo{Mountpoint: unescapeMount(fields[4]), Owner: owner})
	}
	return out, sc.Err()
}

// unescapeMount undoes the kernel's octal escapes (\040 for a space, ...).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Sweep unmounts (detached, so a dead server's mount goes at once) every
// lazyfs mount whose owner alive says is gone ("" for a mount without one):
// the leftovers of a harness that was killed. It returns how many it
// unmounted.
func Sweep(alive func(owner string) bool) (int, error) {
	ms, err := Mounts()
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, m := range ms {
		if alive(m.Owner) {
			continue
		}
		if err := detach(m.Mountpoint); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// detach unmounts lazily: umount2(MNT_DETACH) as root, else fusermount -u -z.
func detach(mountpoint string) error {
	err := unix.Unmount(mountpoint, unix.MNT_DETACH)
	if err == nil || errors.Is(err, unix.EINVAL) { // EINVAL: not a mount point (any more)
		return nil
	}
	if !errors.Is(err, unix.EPERM) {
		return fmt.Errorf("unmount %s: %w", mountpoint, err)
	}
	bin, lerr := exec.LookPath("fusermount3")
	if lerr != nil {
		bin = "fusermount"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, bin, "-u", "-z", mountpoint).CombinedOutput(); err != nil {
		return fmt.Errorf("%s -u -z %s: %v: %s", bin, mountpoint, err, strings.TrimSpace(string(out)))
	}
	return nil
}
