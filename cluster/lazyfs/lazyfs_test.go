package lazyfs

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
)

// needFUSE gates a test that mounts.
func needFUSE(t testing.TB) {
	t.Helper()
	testenv.Require(t, testenv.FUSE(Available))
}

// mount serves a fresh backing tree holding setup (path -> contents; a
// trailing "/" makes a directory), which counts as durable.
func mount(t *testing.T, setup map[string]string) *FS {
	t.Helper()
	needFUSE(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	for _, p := range slices.Sorted(maps.Keys(setup)) {
		full := filepath.Join(state, "root", p)
		if strings.HasSuffix(p, "/") {
			must(t, os.MkdirAll(full, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte(setup[p]), 0o644))
	}
	f, err := Mount(filepath.Join(dir, "mnt"), state, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tree reads everything under dir: path -> contents, directories with a
// trailing "/".
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	must(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	}))
	return out
}

// fsOps acts on the mount the way a program would.
type fsOps struct {
	t   *testing.T
	mnt string
}

func (o fsOps) p(rel string) string { return filepath.Join(o.mnt, rel) }

func (o fsOps) write(rel, data string) { must(o.t, os.WriteFile(o.p(rel), []byte(data), 0o644)) }

func (o fsOps) writeAt(rel string, off int64, data string) {
	f, err := os.OpenFile(o.p(rel), os.O_WRONLY|os.O_CREATE, 0o644)
	must(o.t, err)
	_, err = f.WriteAt([]byte(data), off)
	must(o.t, err)
	must(o.t, f.Close())
}

func (o fsOps) writeSync(rel, data string) { // O_SYNC, as nats-server's writeAtomically with sync
	f, err := os.OpenFile(o.p(rel), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_SYNC, 0o644)
	must(o.t, err)
	_, err = f.Write([]byte(data))
	must(o.t, err)
	must(o.t, f.Close())
}

func (o fsOps) fsync(rel string) {
	f, err := os.OpenFile(o.p(rel), os.O_RDWR, 0)
	must(o.t, err)
	must(o.t, f.Sync())
	must(o.t, f.Close())
}

func (o fsOps) fdatasync(rel string) {
	f, err := os.OpenFile(o.p(rel), os.O_RDWR, 0)
	must(o.t, err)
	must(o.t, unix.Fdatasync(int(f.Fd())))
	must(o.t, f.Close())
}

func (o fsOps) fsyncDir(rel string) {
	f, err := os.Open(o.p(rel))
	must(o.t, err)
	must(o.t, f.Sync())
	must(o.t, f.Close())
}

func (o fsOps) truncate(rel string, n int64) { must(o.t, os.Truncate(o.p(rel), n)) }
func (o fsOps) rename(a, b string)           { must(o.t, os.Rename(o.p(a), o.p(b))) }
func (o fsOps) remove(rel string)            { must(o.t, os.Remove(o.p(rel))) }
func (o fsOps) mkdir(rel string)             { must(o.t, os.MkdirAll(o.p(rel), 0o755)) }

const ten = "0123456789"

func TestIntegrationPowerLoss(t *testing.T) {
	needFUSE(t)
	tests := []struct {
		name  string
		setup map[string]string
		ops   func(o fsOps)
		want  map[string]string
		loss  Loss // Bytes, Files, Removed and Restored are compared, and Largest where set
	}{
		{"nothing written", map[string]string{"f": ten}, func(fsOps) {},
			map[string]string{"f": ten}, Loss{}},
		{"write, fsync, write more: the synced contents", nil, func(o fsOps) {
			o.write("f", "aaa")
			o.fsync("f")
			o.writeAt("f", 3, "bbb")
		}, map[string]string{"f": "aaa"}, Loss{Bytes: 3, Files: 1}},
		{"create without any sync: gone", nil, func(o fsOps) { o.write("g", "x") },
			map[string]string{}, Loss{Bytes: 1, Removed: 1}},
		{"create committed by another file's fsync, never synced: empty", nil, func(o fsOps) {
			o.write("g", "hello")
			o.write("h", "x")
			o.fsync("h")
		}, map[string]string{"g": "", "h": "x"}, Loss{Bytes: 5, Files: 1, Largest: []string{"g (5 bytes)"}}},
		{"overwrite in place: the synced bytes back", map[string]string{"f": ten}, func(o fsOps) {
			o.writeAt("f", 2, "XY")
		}, map[string]string{"f": ten}, Loss{Bytes: 2, Files: 1}},
		{"overwrite, fsync, overwrite again: the second sync's bytes", map[string]string{"f": ten}, func(o fsOps) {
			o.writeAt("f", 2, "XY")
			o.fsync("f")
			o.writeAt("f", 1, "abcd")
		}, map[string]string{"f": "01XY456789"}, Loss{Bytes: 4, Files: 1}},
		{"truncate without sync: restored", map[string]string{"f": ten}, func(o fsOps) { o.truncate("f", 3) },
			map[string]string{"f": ten}, Loss{Bytes: 7, Files: 1}},
		{"truncate then extend: restored and cut back", map[string]string{"f": ten}, func(o fsOps) {
			o.truncate("f", 3)
			o.writeAt("f", 3, "abcdefghijkl")
		}, map[string]string{"f": ten}, Loss{Bytes: 7 + 5, Files: 1}},
		{"grown by truncate: cut back", map[string]string{"f": ten}, func(o fsOps) { o.truncate("f", 100) },
			map[string]string{"f": ten}, Loss{Bytes: 90, Files: 1}},
		{"rewritten with O_TRUNC (os.WriteFile): restored", map[string]string{"f": ten}, func(o fsOps) { o.write("f", "new") },
			map[string]string{"f": ten}, Loss{Bytes: 10, Files: 1}},
		{"O_SYNC write: durable", nil, func(o fsOps) { o.writeSync("s", "abc") },
			map[string]string{"s": "abc"}, Loss{}},
		{"fdatasync: durable", nil, func(o fsOps) {
			o.write("d", "abc")
			o.fdatasync("d")
		}, map[string]string{"d": "abc"}, Loss{}},
		{"tmp renamed over a file, no sync: the old file back", map[string]string{"index.db": "old"}, func(o fsOps) {
			o.write("index.db.tmp", "new")
			o.rename("index.db.tmp", "index.db")
		}, map[string]string{"index.db": "old"}, Loss{Bytes: 3, Removed: 1, Restored: 1, Largest: []string{"index.db.tmp (3 bytes)"}}},
		{"tmp synced, renamed, directory synced: the new file", map[string]string{"index.db": "old"}, func(o fsOps) {
			o.writeSync("index.db.tmp", "new")
			o.rename("index.db.tmp", "index.db")
			o.fsyncDir(".")
		}, map[string]string{"index.db": "new"}, Loss{}},
		{"unlink without sync: back", map[string]string{"a": "1"}, func(o fsOps) { o.remove("a") },
			map[string]string{"a": "1"}, Loss{Restored: 1}},
		{"unlink, directory synced: gone", map[string]string{"a": "1", "b": "2"}, func(o fsOps) {
			o.remove("a")
			o.fsyncDir(".")
		}, map[string]string{"b": "2"}, Loss{}},
		{"rmdir without sync: back", map[string]string{"d/": ""}, func(o fsOps) { o.remove("d") },
			map[string]string{"d/": ""}, Loss{Restored: 1}},
		{"new directory tree without sync: gone", map[string]string{"top/": ""}, func(o fsOps) {
			o.mkdir("top/d/e")
			o.write("top/d/e/f", "x")
		}, map[string]string{"top/": ""}, Loss{Bytes: 1, Removed: 3}},
		{"new directory tree, the file synced: all of it", nil, func(o fsOps) {
			o.mkdir("d/e")
			o.write("d/e/f", "x")
			o.fsync("d/e/f")
		}, map[string]string{"d/": "", "d/e/": "", "d/e/f": "x"}, Loss{}},
		{"directory renamed without sync: back, with its files", map[string]string{"d/f": "1"}, func(o fsOps) {
			o.rename("d", "e")
			o.writeAt("e/f", 1, "2")
		}, map[string]string{"d/": "", "d/f": "1"}, Loss{Bytes: 1, Files: 1, Restored: 1}},
		{"file renamed, synced, renamed again: the synced name", nil, func(o fsOps) {
			o.write("a", "x")
			o.rename("a", "b")
			o.fsync("b")
			o.rename("b", "c")
		}, map[string]string{"b": "x"}, Loss{Restored: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := mount(t, tc.setup)
			tc.ops(fsOps{t, f.Mountpoint()})
			loss, err := f.PowerLoss()
			if err != nil {
				t.Fatal(err)
			}
			if got := tree(t, f.Mountpoint()); !maps.Equal(got, tc.want) {
				t.Errorf("after the power loss the mount holds %q, want %q", got, tc.want)
			}
			got := Loss{Bytes: loss.Bytes, Files: loss.Files, Removed: loss.Removed, Restored: loss.Restored}
			if tc.loss.Largest != nil {
				got.Largest = loss.Largest
			}
			if !reflect.DeepEqual(got, tc.loss) {
				t.Errorf("loss %+v, want %+v", got, tc.loss)
			}
			if b := tree(t, f.trash); len(b) > 0 {
				t.Errorf("trash not emptied: %q", b)
			}
		})
	}
}

// After a power loss what survived is durable: a second one discards only
// what was written after the first.
func TestIntegrationPowerLossTwice(t *testing.T) {
	f := mount(t, map[string]string{"f": ten})
	o := fsOps{t, f.Mountpoint()}
	o.writeAt("f", 10, "abc")
	o.write("g", "x")
	o.fsync("g")
	if loss, err := f.PowerLoss(); err != nil || loss.Bytes != 3 || loss.Written != 4 || loss.Fsyncs != 1 {
		t.Fatalf("first power loss: %+v, %v; want 3 bytes discarded of 4 written, 1 fsync", loss, err)
	}
	o.writeAt("f", 0, "Z")
	loss, err := f.PowerLoss()
	if err != nil || loss.Bytes != 1 || loss.Written != 1 {
		t.Fatalf("second power loss: %+v, %v; want 1 byte discarded of 1 written", loss, err)
	}
	if got, want := tree(t, f.Mountpoint()), map[string]string{"f": ten, "g": "x"}; !maps.Equal(got, want) {
		t.Errorf("mount holds %q, want %q", got, want)
	}
}

func TestIntegrationWipe(t *testing.T) {
	f := mount(t, map[string]string{"d/f": ten})
	fsOps{t, f.Mountpoint()}.write("g", "x")
	must(t, f.Wipe())
	if got := tree(t, f.Mountpoint()); len(got) > 0 {
		t.Errorf("wiped mount holds %q", got)
	}
	if loss, err := f.PowerLoss(); err != nil || !reflect.DeepEqual(loss, Loss{}) {
		t.Errorf("power loss after a wipe: %+v, %v; want nothing to discard", loss, err)
	}
}

// With the writeback cache a page reaches the daemon when the kernel flushes
// it, through the handle last opened for writing, whoever wrote it. A write
// through an O_SYNC handle is durable once the kernel's fsync after it is;
// a page another descriptor dirties later, flushed through that handle, is
// not.
func TestIntegrationPowerLossOSyncHandleFlushesAnothersPage(t *testing.T) {
	f := mount(t, map[string]string{"f": ""})
	p := filepath.Join(f.Mountpoint(), "f")
	plain, err := os.OpenFile(p, os.O_WRONLY, 0)
	must(t, err)
	synced, err := os.OpenFile(p, os.O_WRONLY|os.O_SYNC, 0)
	must(t, err)
	_, err = synced.WriteAt([]byte("b"), 8192)
	must(t, err)
	_, err = plain.WriteAt([]byte("aaaa"), 0) // stays in the page cache
	must(t, err)
	must(t, plain.Close()) // flushes page 0, through the newest writable handle
	must(t, synced.Close())
	if _, err := f.PowerLoss(); err != nil {
		t.Fatal(err)
	}
	want := string(make([]byte, 8192)) + "b"
	if got := tree(t, f.Mountpoint())["f"]; got != want {
		t.Errorf("f holds %d bytes starting %q, want 8192 zero bytes and %q", len(got), got[:min(len(got), 4)], "b")
	}
}

// A program that writes part of a page opened write-only makes the kernel
// read the page first (the writeback cache's read-modify-write), through
// that handle; and what a page flush rewrote unchanged is neither counted
// written nor discarded.
func TestIntegrationPowerLossPartialPageWriteOnly(t *testing.T) {
	f := mount(t, map[string]string{"f": ten})
	o := fsOps{t, f.Mountpoint()}
	o.writeAt("f", 4, "XY") // O_WRONLY
	loss, err := f.PowerLoss()
	if err != nil || loss.Bytes != 2 || loss.Written != 2 {
		t.Fatalf("power loss: %+v, %v; want 2 bytes discarded of 2 written", loss, err)
	}
	if got := tree(t, f.Mountpoint())["f"]; got != ten {
		t.Errorf("f holds %q, want %q", got, ten)
	}
}

// Xattrs are refused: with them the kernel asks for security.capability
// before every write (file_remove_privs), a round trip each.
func TestIntegrationXattrsRefused(t *testing.T) {
	f := mount(t, map[string]string{"f": ten})
	p := filepath.Join(f.Mountpoint(), "f")
	if err := unix.Setxattr(p, "user.k", []byte("v"), 0); err != unix.EOPNOTSUPP {
		t.Errorf("setxattr: %v, want EOPNOTSUPP", err)
	}
	if _, err := unix.Getxattr(p, "user.k", nil); err != unix.EOPNOTSUPP {
		t.Errorf("getxattr: %v, want EOPNOTSUPP", err)
	}
	fsOps{t, f.Mountpoint()}.writeAt("f", 0, "x")
}

// A write counts the span from its first changed byte to its last, past
// the end of the file counting as changed: a page the writeback cache sends
// again counts what the program wrote into it.
func TestChangedSpan(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	must(t, os.WriteFile(p, []byte("0123\x00\x00\x00\x00"), 0o644))
	fd, err := unix.Open(p, unix.O_RDONLY, 0)
	must(t, err)
	defer unix.Close(fd)
	j := newJournal(t.TempDir(), t.TempDir())
	for _, tc := range []struct {
		off  int64
		data string
		want int64
	}{
		{0, "0123", 0},
		{0, "0X2Y", 3},
		{2, "23\x00a\x00b\x00", 4},   // zeros written between changes count
		{4, "\x00\x00\x00\x00xy", 2}, // past the end
		{8, "", 0},
	} {
		if got, err := j.changed(fd, tc.off, []byte(tc.data)); err != nil || got != tc.want {
			t.Errorf("changed(%d, %q) = %d, %v; want %d", tc.off, tc.data, got, err, tc.want)
		}
	}
}
