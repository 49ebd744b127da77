package seqflip

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// affected are the releases on which the flipped sequence bit was measured
// to keep the server from starting (README.md). On them the test holds
// that the anomaly still shows; on any other server (a branch, a newer
// release) that it does not.
var affected = []string{"2.10.5", "2.10.27", "2.11.8", "2.11.17", "2.12.0", "2.12.3", "2.14.10", "2.15.3"}

func known() bool { return slices.Contains(affected, server.VERSION) }

const (
	stream = "S"
	// bound is how long a restart may take to be ready for clients, and
	// then a get to be answered. Restoring the 100 small messages took
	// 33 ms; with the flipped sequence bit the server (2.12 on) was still
	// restoring, its memory growing by about 300 MB a second, when killed
	// 10 s later (3 GB resident); 2.10 and 2.11 start, and the first get
	// that loads the block does the same.
	bound = 6 * time.Second
	// childDir names the store the child process starts a server on.
	childDir = "SEQFLIP_STORE_DIR"
)

// TestMain runs the child: a server on the store in $SEQFLIP_STORE_DIR
// that prints "ready" once it is ready for clients, then how a get of
// message 1 was answered. A server stuck in its restore or a read cannot
// be stopped from inside, so the test runs it as a process it can kill.
func TestMain(m *testing.M) {
	if dir := os.Getenv(childDir); dir != "" {
		s, err := server.NewServer(options(dir))
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		go s.Start()
		if s.ReadyForConnections(time.Hour) {
			fmt.Println("ready")
			fmt.Println("read:", readFirst(s.ClientURL()))
		}
		s.WaitForShutdown()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// readFirst gets message 1, which loads the block message 10 is in, and
// says how it was answered.
func readFirst(url string) string {
	nc, err := nats.Connect(url)
	if err != nil {
		return err.Error()
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return "stream info: " + err.Error()
	}
	if _, err := st.GetMsg(ctx, 1); err != nil {
		return "message 1: " + err.Error()
	}
	return "message 1 answered"
}

func options(dir string) *server.Options {
	return &server.Options{ServerName: "s1", Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoSigs: true}
}

// TestIntegrationRestartAfterOneBitFlip: a one-server file stream holds
// 100 messages; the server stops, one bit of message 10's record in the
// block is flipped, and the server starts again. Flipping bit 46 of the
// record's sequence, the server must be ready within bound and then
// answer a get of message 1 within bound; the control flips a bit of the
// record's body instead (its checksum fails, which the server finds on
// reading message 10, not on starting or reading message 1). About 6 s and
// 2 GB in the child, so the unit suite (-short) skips it; the name puts
// it in the integration suite (make integration).
func TestIntegrationRestartAfterOneBitFlip(t *testing.T) {
	if testing.Short() {
		t.Skip("a child server that may grow to 2 GB for 6 s: make test and make integration run it")
	}
	for _, tc := range []struct {
		name  string
		field func(record []byte, slen int) int // the byte to flip bit 6 of
	}{
		{"the sequence's bit 46", func([]byte, int) int { return 4 + 5 }},
		{"a body bit", func(_ []byte, slen int) int { return 22 + slen + 512 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fill(t, dir)
			flipped := flip(t, dir, tc.field)
			ok, detail := restart(t, dir)
			t.Logf("nats-server %s: %s; %s", server.VERSION, flipped, detail)
			isSeq := strings.HasPrefix(tc.name, "the sequence")
			switch {
			case isSeq && known() && ok:
				t.Errorf("nats-server %s is listed as affected, but it started and answered: if this release fixed it, take it off the list", server.VERSION)
			case (!isSeq || !known()) && !ok:
				t.Errorf("the restarted server did not start and answer a get, each within %s: %s", bound, detail)
			}
		})
	}
}

// fill publishes 100 messages of 1 KiB to the file stream S on a server
// in process, then stops it gracefully, so its stream state is written.
func fill(t *testing.T, dir string) {
	t.Helper()
	s, err := server.NewServer(options(dir))
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Shutdown()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{"S.>"}}); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 1024)
	for range 100 {
		if _, err := js.Publish(ctx, "S.x", body); err != nil {
			t.Fatal(err)
		}
	}
	nc.Close()
	s.Shutdown()
	s.WaitForShutdown()
}

// flip flips bit 6 of one byte of message 10's record in the stream's
// first block. A record is a 22-byte header (length, sequence, time,
// subject length), the subject, the body and an 8-byte hash.
func flip(t *testing.T, dir string, field func([]byte, int) int) string {
	t.Helper()
	blk := filepath.Join(dir, "jetstream", "$G", "streams", stream, "msgs", "1.blk")
	b, err := os.ReadFile(blk)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	for at := 0; at+22 <= len(b); {
		rl := int(le.Uint32(b[at:]) &^ (1 << 31))
		if rl < 22 || at+rl > len(b) {
			t.Fatalf("%s: no record length at %d", blk, at)
		}
		if le.Uint64(b[at+4:]) == 10 {
			off := at + field(b[at:at+rl], int(le.Uint16(b[at+20:])))
			b[off] ^= 0x40
			if err := os.WriteFile(blk, b, 0o640); err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("1.blk byte %d (record 10 at %d, byte %d of it) %#02x -> %#02x", off, at, off-at, b[off]^0x40, b[off])
		}
		at += rl
	}
	t.Fatalf("%s: no record of message 10", blk)
	return ""
}

// restart starts the server on dir in a child process and says whether it
// was ready within bound and then answered the get of message 1 within
// bound, and if not, how much memory it held.
func restart(t *testing.T, dir string) (bool, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDir+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var seen []string
	for _, want := range []string{"ready", "read:"} {
		select {
		case l, ok := <-lines:
			if !ok {
				return false, fmt.Sprintf("%sthe server exited after %s", strings.Join(seen, ""), time.Since(start).Round(time.Millisecond))
			}
			if !strings.HasPrefix(l, want) {
				return false, fmt.Sprintf("%sthe child said %q", strings.Join(seen, ""), l)
			}
			seen = append(seen, fmt.Sprintf("%s after %s; ", l, time.Since(start).Round(time.Millisecond)))
			start = time.Now()
		case <-time.After(bound):
			return false, fmt.Sprintf("%sno %q within %s, holding %s", strings.Join(seen, ""), strings.TrimSuffix(want, ":"), bound, rss(cmd.Process.Pid))
		}
	}
	return true, strings.TrimSuffix(strings.Join(seen, ""), "; ")
}

// rss is a process's resident memory, from /proc on Linux.
func rss(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "memory unknown (no /proc)"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			return strings.TrimSpace(v) + " resident"
		}
	}
	return "memory unknown"
}
