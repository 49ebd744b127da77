package multilastbeyond

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// affected are the releases this reproduction was run on that answer
// "No Results" from a file store (README.md). On them the test holds that
// the anomaly still shows; on any other server (a branch, a newer
// release) that it does not.
var affected = []string{"2.15.3"}

func known() bool { return slices.Contains(affected, server.VERSION) }

// A stream of three subjects, one message each (sequences 1-3), asked for
// the last message of each subject up to sequences 3, 4 and 100. Up to 3
// both stores answer all three. Beyond the last sequence the memory store
// still answers all three (nothing above 3 exists, so the last up to 4 is
// the last); the file store answers 404 No Results, as if no subject had
// a message.
func TestMultiLastBeyondTheLastSequence(t *testing.T) {
	nc := start(t)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var anomalies []string
	for _, storage := range []jetstream.StorageType{jetstream.MemoryStorage, jetstream.FileStorage} {
		name := "S" + strings.ToUpper(storage.String()[:1])
		if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{name + ".>"},
			Storage: storage, AllowDirect: true}); err != nil {
			t.Fatal(err)
		}
		subjects := []string{name + ".a", name + ".b", name + ".c"}
		for _, s := range subjects {
			if _, err := js.Publish(ctx, s, []byte(s)); err != nil {
				t.Fatal(err)
			}
		}
		for _, upTo := range []uint64{3, 4, 100} {
			got, status := multiLast(t, nc, name, subjects, upTo)
			t.Logf("%s storage, up to %d: sequences %v, then %s", storage, upTo, got, status)
			if len(got) != 3 {
				anomalies = append(anomalies, fmt.Sprintf("%s storage: the last messages of 3 subjects up to sequence %d (the stream's last is 3) answered %v, then %q", storage, upTo, got, status))
			}
		}
	}
	anomaly := strings.Join(anomalies, "; ")
	t.Logf("nats-server %s: %s", server.VERSION, cmp.Or(anomaly, "every answer whole, as it should be"))
	switch {
	case known() && anomaly == "":
		t.Errorf("nats-server %s is listed as affected, but the anomaly did not show: if this release fixed it, take it off the list", server.VERSION)
	case !known() && anomaly != "":
		t.Error(anomaly)
	}
}

// multiLast sends a batch direct get for the last message of each subject
// up to upTo, as a raw request ($JS.API.DIRECT.GET.<stream> with
// multi_last and up_to_seq, ADR-31), and returns the sequences answered
// and the status line that ended the answer.
func multiLast(t *testing.T, nc *nats.Conn, stream string, subjects []string, upTo uint64) ([]uint64, string) {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"multi_last": subjects, "up_to_seq": upTo})
	inbox := nats.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.PublishRequest("$JS.API.DIRECT.GET."+stream, inbox, req); err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for {
		m, err := sub.NextMsg(2 * time.Second)
		if err != nil {
			return seqs, "no end: " + err.Error()
		}
		if status := m.Header.Get("Status"); status != "" {
			return seqs, status + " " + m.Header.Get("Description")
		}
		var seq uint64
		fmt.Sscan(m.Header.Get("Nats-Sequence"), &seq)
		seqs = append(seqs, seq)
	}
}

func start(t *testing.T) *nats.Conn {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
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
	return nc
}
