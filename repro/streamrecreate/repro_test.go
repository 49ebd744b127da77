package streamrecreate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// affected are the releases this reproduction was measured on that keep a
// deleted file stream's data (README.md has the rates). On them the tests
// hold that the anomaly still shows; on any other server (a branch, a
// newer release) that it does not.
var affected = []string{"2.10.27", "2.11.8", "2.12.3", "2.14.10", "2.15.3"}

func known() bool { return slices.Contains(affected, server.VERSION) }

// The mechanism, made certain. fileStore.Delete renames the stream's folder
// to "."+name and removes that in a goroutine; while an earlier delete's
// removal of "."+name runs, the rename fails, stream.go drops the error
// ("Ignore errors."), and the folder stays with its message blocks, to be
// recovered by the next create of the name. The test leaves a non-empty
// "."+name folder in place, as a removal still running would.
func TestRecreatedStreamStartsEmpty(t *testing.T) {
	js, streams := start(t)
	ctx := context.Background()
	removing(t, streams, "R")
	cfg := jetstream.StreamConfig{Name: "R", Subjects: []string{"r.>"}} // file storage, R1: the defaults
	if _, err := js.CreateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "r.x", []byte("before the delete")); err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(ctx, "R"); err != nil {
		t.Fatal(err)
	}
	st, err := js.CreateStream(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	anomaly := ""
	if n := st.CachedInfo().State.Msgs; n != 0 {
		m, err := st.GetMsg(ctx, 1)
		anomaly = fmt.Sprintf("a stream created under a deleted stream's name holds %d message(s); sequence 1 is %q (%v)", n, data(m), err)
	}
	expect(t, anomaly)
}

// The same through the KV API: the bucket created after DeleteKeyValue
// answers a get with the deleted bucket's value.
func TestRecreatedBucketStartsEmpty(t *testing.T) {
	js, streams := start(t)
	ctx := context.Background()
	removing(t, streams, "KV_B")
	cfg := jetstream.KeyValueConfig{Bucket: "B"}
	kv, err := js.CreateKeyValue(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k", []byte("before the delete")); err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteKeyValue(ctx, "B"); err != nil {
		t.Fatal(err)
	}
	if kv, err = js.CreateKeyValue(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	anomaly := ""
	switch e, err := kv.Get(ctx, "k"); {
	case err == nil:
		anomaly = fmt.Sprintf("a bucket created under a deleted bucket's name answers a get of k with %q at revision %d", e.Value(), e.Revision())
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		t.Fatal(err)
	}
	expect(t, anomaly)
}

// The race as users meet it, with nothing of the test's in the store:
// create, publish, delete, create again, delete, round after round. How
// often it shows depends on the scheduling (14-23 % of rounds on two cores
// here, none in 5,000 on one busy core), so on an affected release this
// measures and says so; on any other server not one round of 1,000 may
// show it (200 under -short).
func TestDeleteRecreateRace(t *testing.T) {
	js, streams := start(t)
	ctx := context.Background()
	cfg := jetstream.StreamConfig{Name: "R", Subjects: []string{"r.>"}}
	rounds := 1000
	if testing.Short() {
		rounds = 200
	}
	var resurrected, kept int
	first := ""
	for i := range rounds {
		if _, err := js.CreateStream(ctx, cfg); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if _, err := js.Publish(ctx, "r.x", fmt.Appendf(nil, "deleted-%d", i)); err != nil {
			t.Fatal(err)
		}
		if err := js.DeleteStream(ctx, "R"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(streams, "R")); err == nil {
			kept++ // DeleteStream answered success, and the folder is still there
		}
		st, err := js.CreateStream(ctx, cfg)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if n := st.CachedInfo().State.Msgs; n != 0 {
			resurrected++
			if first == "" {
				m, err := st.GetMsg(ctx, 1)
				first = fmt.Sprintf("round %d: the new stream holds %d message(s); sequence 1 is %q (%v)", i, n, data(m), err)
			}
		}
		if err := js.DeleteStream(ctx, "R"); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("nats-server %s: %d of %d recreated streams held a deleted stream's message; the folder outlived DeleteStream in %d rounds. %s",
		server.VERSION, resurrected, rounds, kept, first)
	if known() {
		t.Skipf("nats-server %s is known to be affected: the rate above is a measurement, the tests above hold the mechanism", server.VERSION)
	}
	if resurrected > 0 {
		t.Errorf("a stream created under a deleted stream's name is not empty: %s", first)
	}
}

// expect holds an affected release to showing the anomaly, and any other
// server to not.
func expect(t *testing.T, anomaly string) {
	t.Helper()
	t.Logf("nats-server %s: %s", server.VERSION, cmp.Or(anomaly, "empty, as it should be"))
	switch {
	case known() && anomaly == "":
		t.Errorf("nats-server %s is listed as affected, but the anomaly did not show: if this release fixed it, take it off the list", server.VERSION)
	case !known() && anomaly != "":
		t.Error(anomaly)
	}
}

// removing leaves a non-empty "."+name folder beside the streams, as an
// earlier delete's removal still under way would.
func removing(t *testing.T, streams, name string) {
	t.Helper()
	dir := filepath.Join(streams, "."+name, "msgs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "1.blk"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// start runs one JetStream server in process, its store in a folder of the
// test's, stopped when the test ends; it returns the folder of its streams.
func start(t *testing.T) (jetstream.JetStream, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatal("the server is not ready")
	}
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js, filepath.Join(dir, "jetstream", "$G", "streams")
}

func data(m *jetstream.RawStreamMsg) string {
	if m == nil {
		return ""
	}
	return string(m.Data)
}
