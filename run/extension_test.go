package run_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/local"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// The proof of the extension point: a workload defined here, registered
// here (the workload, its op type and its finding class), runs through
// the whole pipeline with a fault, its own typed ops and its own checker,
// and shows in report.html, junit.xml and finding.md.
func init() {
	workloads.Register(tinyWorkload{})
	history.RegisterOpTypes(opTinyPublish)
	findings.RegisterClasses(findings.Class{Check: "tiny-acked", Kind: "lost", Slug: "tiny-lost", Rank: 0,
		Title: "An acknowledged tiny publish is missing from the stream", Promise: "A PubAck means the stream keeps the message."})
}

// tinyWorkload publishes unique values to an R3 stream and checks that
// every acknowledged one is in it afterwards. With Plant it records one
// acknowledged publish it never sent, so its checker must find it lost.
type tinyWorkload struct{}

type tinySettings struct {
	Msgs  int  `json:"msgs"`
	Plant bool `json:"plant,omitempty"`
}

// opTinyPublish is the tiny workload's op; its data is a tinyMsg.
const opTinyPublish history.OpType = "tiny-publish"

type tinyMsg struct {
	Value string `json:"value"`
	Seq   uint64 `json:"seq,omitempty"`
}

type tinyInstance struct {
	env   *workloads.Env
	nc    *nats.Conn
	js    jetstream.JetStream
	msgs  int
	plant bool
}

func (tinyWorkload) Name() string { return "tiny" }
func (tinyWorkload) Doc() string  { return "a test workload" }
func (tinyWorkload) Flags(fs *pflag.FlagSet) workloads.Expander {
	n := fs.Int("msgs", 200, "messages")
	return func(func(string) bool) ([]workloads.Settings, error) {
		return []workloads.Settings{tinySettings{Msgs: *n}}, nil
	}
}
func (tinyWorkload) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var s tinySettings
	return s, json.Unmarshal(raw, &s)
}

// Check: every acknowledged publish of history.jsonl is in stored.json.
func (tinyWorkload) Check(dir string, _ checker.Options) ([]checker.Result, error) {
	ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		return nil, err
	}
	var stored map[string]bool
	b, err := os.ReadFile(filepath.Join(dir, "stored.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &stored); err != nil {
		return nil, err
	}
	res := checker.Result{Name: "tiny-acked", Verdict: checker.Valid, Counts: map[string]int{"acked": 0, "lost": 0}}
	for n, op := range ops {
		var m tinyMsg
		if op.Type != opTinyPublish || op.Outcome != history.OK {
			continue
		}
		if err := json.Unmarshal(op.Data, &m); err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		res.Counts["acked"]++
		if !stored[m.Value] {
			res.Counts["lost"]++
			res.Verdict = checker.Invalid
			res.Anomalies = append(res.Anomalies, checker.Anomaly{Kind: "lost", Key: m.Value, Ops: []checker.OpRef{{Index: n, Op: op}},
				Description: fmt.Sprintf("%s was acknowledged at sequence %d and is not in the stream", m.Value, m.Seq)})
		}
	}
	res.Summary = fmt.Sprintf("%d acknowledged, %d lost", res.Counts["acked"], res.Counts["lost"])
	return []checker.Result{res}, nil
}

func (s tinySettings) Tags() []record.Tag { return nil }
func (s tinySettings) Validate(int) error { return nil }
func (s tinySettings) Plan(base cluster.Config) workloads.Plan {
	return workloads.Plan{Cluster: base, Timed: true, Streams: []workloads.Stream{{Name: "TINY", Filter: "tiny", Subject: "tiny", Replicas: 3}}}
}
func (s tinySettings) Named(string) workloads.Settings { return s }
func (s tinySettings) Setup(ctx context.Context, env *workloads.Env) (workloads.Instance, error) {
	var urls []string
	for _, n := range env.Cluster.Nodes() {
		urls = append(urls, n.ClientURL)
	}
	nc, err := nats.Connect(strings.Join(urls, ","), nats.IgnoreDiscoveredServers(), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		return nil, err
	}
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "TINY", Subjects: []string{"tiny"}, Replicas: 3}); err != nil {
		nc.Close()
		return nil, err
	}
	return &tinyInstance{env: env, nc: nc, js: js, msgs: s.Msgs, plant: s.Plant}, nil
}

func (i *tinyInstance) Close() { i.nc.Close() }
func (i *tinyInstance) Run(ctx context.Context, _ *nemesis.Script) error {
	if i.plant { // never published: the checker must find it lost
		now := i.env.History.Now()
		data, _ := json.Marshal(tinyMsg{Value: "planted", Seq: 1 << 40})
		i.env.History.Add(history.Op{Client: 1, Type: opTinyPublish, Data: data, Outcome: history.OK, Invoke: now, Complete: now})
	}
	for n := 0; ctx.Err() == nil; n++ {
		m := tinyMsg{Value: fmt.Sprintf("v%d", n)}
		op := history.Op{Client: 0, Type: opTinyPublish, Invoke: i.env.History.Now()}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		ack, err := i.js.Publish(pctx, "tiny", []byte(m.Value))
		cancel()
		op.Complete, op.Outcome = i.env.History.Now(), history.OK
		if err != nil {
			op.Outcome, op.Err = history.Info, history.ErrTimeout
		} else {
			m.Seq = ack.Sequence
		}
		op.Data, _ = json.Marshal(m)
		i.env.History.Add(op)
		if n >= i.msgs {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}

// Finish reads the stream back into stored.json, retrying each request
// for a few seconds: a restarted node may still be joining.
func (i *tinyInstance) Finish(ctx context.Context) error {
	var info *jetstream.StreamInfo
	var s jetstream.Stream
	err := retry(func() (err error) {
		if s, err = i.js.Stream(ctx, "TINY"); err == nil {
			info, err = s.Info(ctx)
		}
		return err
	})
	if err != nil {
		return err
	}
	stored := map[string]bool{}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && seq > 0; seq++ {
		var m *jetstream.RawStreamMsg
		if err := retry(func() (err error) { m, err = s.GetMsg(ctx, seq); return err }); err != nil {
			return fmt.Errorf("get %d: %w", seq, err)
		}
		stored[string(m.Data)] = true
	}
	i.env.ReadBack(len(stored), true)
	b, _ := json.Marshal(stored)
	return os.WriteFile(filepath.Join(i.env.Dir, "stored.json"), b, 0o644)
}

func retry(f func() error) (err error) {
	for range 50 {
		if err = f(); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

func TestIntegrationExtensionPoint(t *testing.T) {
	testenv.Require(t, testenv.Processes(serverbin.Path))
	spec := record.Spec{Workload: "tiny", Runtime: "local", Store: t.TempDir(), TimeLimit: 6 * time.Second,
		DirectGet: []bool{false}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"kill"},
		NemesisInterval: 2 * time.Second, Seed: 3, RecoveryTimeout: 30 * time.Second, CheckTimeout: 30 * time.Second,
		Command: "chaos run --workload tiny --nemesis kill"}
	if err := run.SetSettings(&spec, []workloads.Settings{tinySettings{Msgs: 100, Plant: true}}); err != nil {
		t.Fatal(err)
	}
	if err := run.Validate(spec); err != nil {
		t.Fatal(err)
	}
	out, _ := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	defer out.Close()
	res, err := run.Execute(context.Background(), spec, local.New(), out)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cells[0]
	if c.Error != "" {
		printed, _ := os.ReadFile(out.Name())
		t.Fatalf("harness error: %s\n%s", c.Error, printed)
	}
	var tiny *checker.Result
	for i := range c.Checks {
		if c.Checks[i].Name == "tiny-acked" {
			tiny = &c.Checks[i]
		}
	}
	// Everything published is there; the planted publish alone is lost.
	if tiny == nil || tiny.Verdict != checker.Invalid || tiny.Counts["acked"] < 2 || tiny.Counts["lost"] != 1 ||
		len(tiny.Anomalies) != 1 || tiny.Anomalies[0].Key != "planted" {
		t.Fatalf("the workload's checker: %+v", tiny)
	}
	// Every acknowledged value but the planted one is in the read-back
	// (the check says so); one whose ack was lost to the kill may be there
	// too.
	if kept := tiny.Counts["acked"] - tiny.Counts["lost"]; c.Stream.Entries < kept || !c.Stream.Complete {
		t.Errorf("results.json's stream: %d entries, complete %v; want the %d kept at least, complete", c.Stream.Entries, c.Stream.Complete, kept)
	}
	if len(c.Faults) == 0 || c.Faults[0].Fault != "kill" || !c.Faults[0].Verified {
		t.Fatalf("fault windows %+v, want a verified kill", c.Faults)
	}
	if _, err := reports.Write(res.Dir); err != nil {
		t.Fatal(err)
	}
	for file, wants := range map[string][]string{
		reports.HTMLFile:  {"tiny-acked", tiny.Summary, "kill"},
		reports.JUnitFile: {`name="tiny-acked"`, "<failure", tiny.Summary},
		filepath.Join(filepath.Base(c.Dir), findings.FileName): {`<a id="tiny-lost"></a>`, "An acknowledged tiny publish is missing",
			"A PubAck means the stream keeps the message.", "planted was acknowledged", `tiny-publish {"value":"planted"`},
	} {
		b, err := os.ReadFile(filepath.Join(res.Dir, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range wants {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s lacks %q", file, want)
			}
		}
	}
}
