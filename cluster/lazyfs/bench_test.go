package lazyfs

import (
	"os"
	"path/filepath"
	"testing"
)

// The layer's cost against a plain directory on the same disk, for the
// ways nats-server writes: appends left to the background sync (the
// default), appends each followed by fsync (its raft log with
// sync_interval: always) and appends through an O_SYNC descriptor (its
// index and state files then). Compare the ns/op of the plain and lazyfs
// halves:
//
//	go test -run '^$' -bench . ./cluster/lazyfs
func BenchmarkAppend(b *testing.B) {
	for _, sync := range []string{"nosync", "fsync", "osync"} {
		name := sync
		b.Run(name+"/plain", func(b *testing.B) { benchAppend(b, b.TempDir(), sync) })
		b.Run(name+"/lazyfs", func(b *testing.B) {
			needFUSE(b)
			dir := b.TempDir()
			f, err := Mount(filepath.Join(dir, "mnt"), filepath.Join(dir, "state"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			benchAppend(b, f.Mountpoint(), sync)
		})
	}
}

// benchAppend appends 4 KiB records (a few nats messages) to one file.
func benchAppend(b *testing.B, dir string, sync string) {
	flags := os.O_RDWR | os.O_CREATE | os.O_TRUNC
	if sync == "osync" {
		flags |= os.O_SYNC
	}
	f, err := os.OpenFile(filepath.Join(dir, "1.blk"), flags, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rec := make([]byte, 4096)
	b.SetBytes(int64(len(rec)))
	for b.Loop() {
		if _, err := f.Write(rec); err != nil {
			b.Fatal(err)
		}
		if sync == "fsync" {
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
