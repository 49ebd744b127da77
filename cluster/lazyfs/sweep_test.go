package lazyfs

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseMountinfo(t *testing.T) {
	const info = `22 1 0:21 / /proc rw,nosuid - proc proc rw
36 22 0:45 / /tmp/run\040one/data/n1 rw,nosuid,nodev,relatime shared:1 - fuse.jschaos-lazyfs host/12/345 rw,user_id=0,group_id=0,allow_other
37 22 0:46 / /tmp/x rw,relatime - fuse.jschaos-lazyfs jschaos-lazyfs rw,user_id=0
38 22 0:47 / /tmp/other rw,relatime - fuse.sshfs host/12/345 rw
39 22 0:48 / /tmp/noopt rw - fuse.jschaos-lazyfs h/1/2 rw
`
	got, err := parseMountinfo(strings.NewReader(info))
	if err != nil {
		t.Fatal(err)
	}
	want := []MountInfo{
		{Mountpoint: "/tmp/run one/data/n1", Owner: "host/12/345"},
		{Mountpoint: "/tmp/x", Owner: ""},
		{Mountpoint: "/tmp/noopt", Owner: "h/1/2"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestIntegrationSweepStaleMount kills a process that serves a mount, as a killed
// harness would be, and checks that the mount is stale and that Sweep
// removes it while keeping a live owner's.
func TestIntegrationSweepStaleMount(t *testing.T) {
	if os.Getenv("LAZYFS_HELPER_MOUNT") != "" {
		return // the helper's half runs in TestMain
	}
	needFUSE(t)
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LAZYFS_HELPER_MOUNT="+dir)
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "mounted" {
		cmd.Process.Kill()
		t.Fatalf("helper: %q %v", line, err)
	}
	must(t, cmd.Process.Kill())
	cmd.Wait()
	if _, err := os.Stat(stale); !errors.Is(err, syscall.ENOTCONN) {
		t.Errorf("stat of the killed server's mount: %v, want ENOTCONN", err)
	}

	live, err := Mount(filepath.Join(dir, "live"), filepath.Join(dir, "live-state"), Options{Owner: "alive"})
	must(t, err)
	defer live.Close()
	// Only the helper's owner is dead: mounts of other tests running now stay.
	n, err := Sweep(func(owner string) bool { return !strings.HasPrefix(owner, "helper/") })
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("Sweep removed %d mounts, want 1", n)
	}
	ms, err := Mounts()
	must(t, err)
	for _, m := range ms {
		if m.Mountpoint == stale {
			t.Errorf("%s still mounted after Sweep", stale)
		}
	}
	if !slices.ContainsFunc(ms, func(m MountInfo) bool { return m.Mountpoint == live.Mountpoint() }) {
		t.Errorf("Sweep unmounted %s, whose owner is alive", live.Mountpoint())
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("the swept mountpoint is not a plain directory again: %v", err)
	}
}

func TestMain(m *testing.M) {
	if dir := os.Getenv("LAZYFS_HELPER_MOUNT"); dir != "" {
		helperMount(dir)
		return
	}
	os.Exit(m.Run())
}

// helperMount serves a mount owned by "helper/<pid>" until it is killed.
func helperMount(dir string) {
	f, err := Mount(filepath.Join(dir, "stale"), filepath.Join(dir, "state"), Options{Owner: "helper/" + strings.Repeat("x", 3)})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	os.Stdout.WriteString("mounted\n")
	time.Sleep(time.Minute)
	f.Close()
	os.Exit(3)
}
