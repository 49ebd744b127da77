package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		mut  func(o *Options)
		want string // "" valid, else a fragment of the error
	}{
		{"defaults", func(*Options) {}, ""},
		{"workqueue one consumer", func(o *Options) { o.Retention, o.Consumers = WorkQueue, 1 }, ""},
		{"ordered limits", func(o *Options) { o.Pattern = Ordered }, ""},
		{"bad retention", func(o *Options) { o.Retention = "forever" }, "--retention"},
		{"bad ack", func(o *Options) { o.Ack = "maybe" }, "--ack"},
		{"bad pattern", func(o *Options) { o.Pattern = "push" }, "--consumer-pattern"},
		{"no producers", func(o *Options) { o.Producers = 0 }, "--producers"},
		{"too many consumers", func(o *Options) { o.Consumers = 65 }, "--consumers"},
		{"no workers", func(o *Options) { o.Workers = 0 }, "--workers"},
		{"replicas above nodes", func(o *Options) { o.Replicas = 5 }, "--replicas"},
		{"workqueue two consumers", func(o *Options) { o.Retention = WorkQueue }, "--retention workqueue takes --consumers 1"},
		{"ordered interest", func(o *Options) { o.Pattern, o.Retention = Ordered, Interest }, "needs --retention limits"},
		{"negative rate", func(o *Options) { o.Rate = -1 }, "--rate"},
		{"ack wait short", func(o *Options) { o.AckWait = Duration(time.Millisecond) }, "--ack-wait"},
		{"max deliver zero", func(o *Options) { o.MaxDeliver = 0 }, "--max-deliver"},
		{"rates sum to one", func(o *Options) { o.NakRate, o.SkipRate = 0.5, 0.5 }, "--nak-rate"},
		{"stall bound below ack wait", func(o *Options) { o.StallBound = Duration(time.Second) }, "--stall-bound"},
		{"drain below stall bound", func(o *Options) { o.DrainTimeout = Duration(10 * time.Second) }, "--drain-timeout"},
		{"window too short", func(o *Options) { o.DuplicateWindow = Duration(time.Millisecond) }, "--duplicate-window"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Defaults
			c.mut(&o)
			err := o.Validate(3)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("want an error with %q, got %v", c.want, err)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestFlagsExpand(t *testing.T) {
	cases := []struct {
		args      []string
		cells     int
		consumers []int
		err       string
	}{
		{nil, 1, []int{2}, ""},
		{[]string{"--retention", "limits,workqueue"}, 2, []int{2, 1}, ""},
		{[]string{"--retention", "workqueue", "--consumers", "1"}, 1, []int{1}, ""},
		{[]string{"--ack", "sync,fire-and-forget", "--consumer-pattern", "pull,ordered"}, 4, []int{2, 2, 2, 2}, ""},
		{[]string{"--rate", "100,fast"}, 0, nil, "--rate \"fast\""},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			expand := workload{}.Flags(fs)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			ss, err := expand(func(f string) bool { return fs.Changed(f) })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want %q, got %v", c.err, err)
				}
				return
			}
			if err != nil || len(ss) != c.cells {
				t.Fatalf("%d cells, %v; want %d", len(ss), err, c.cells)
			}
			for i, s := range ss {
				o := s.(Options)
				if o.Consumers != c.consumers[i] {
					t.Errorf("cell %d: %d consumers, want %d", i, o.Consumers, c.consumers[i])
				}
			}
		})
	}
}

// TestWorkqueueTwoConsumersRefused: asking for two consumers on a work
// queue is a usage error, not silently one.
func TestWorkqueueTwoConsumersRefused(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	expand := workload{}.Flags(fs)
	if err := fs.Parse([]string{"--retention", "workqueue", "--consumers", "2"}); err != nil {
		t.Fatal(err)
	}
	ss, err := expand(fs.Changed)
	if err != nil {
		t.Fatal(err)
	}
	if err := ss[0].Validate(3); err == nil {
		t.Fatal("two consumers on a work queue accepted")
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	o := Defaults
	o.Retention, o.AckWait, o.Seed = Interest, Duration(3*time.Second), 7
	raw, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"ack_wait":"3s"`) {
		t.Errorf("durations not written as text: %s", raw)
	}
	s, err := workload{}.Decode(raw)
	if err != nil || s.(Options) != o {
		t.Fatalf("decoded %+v, %v; want %+v", s, err, o)
	}
	if _, err := (workload{}).Decode(json.RawMessage(`{"ack_wait":"soon"}`)); err == nil {
		t.Fatal("a bad duration decoded")
	}
}

// The errors a queue op records, as history.jsonl has always held them.
func TestRecordErr(t *testing.T) {
	apiErr := func(code jetstream.ErrorCode) error {
		return fmt.Errorf("publish: %w", &jetstream.APIError{ErrorCode: code, Code: 503})
	}
	cases := []struct {
		name     string
		err      error
		mayApply bool
		outcome  history.Outcome
		kind     history.ErrKind
	}{
		{"nil", nil, true, history.OK, ""},
		{"timeout write", context.DeadlineExceeded, true, history.Info, history.ErrTimeout},
		{"timeout read", nats.ErrTimeout, false, history.Fail, history.ErrTimeout},
		{"no responders", nats.ErrNoResponders, true, history.Fail, history.ErrNoResponders},
		{"no stream response", jetstream.ErrNoStreamResponse, true, history.Fail, history.ErrNoResponders},
		{"unavailable", apiErr(10008), true, history.Fail, history.ErrUnavailable},
		{"msg id in process", apiErr(10158), true, history.Info, history.ErrMsgIDInProcess},
		{"msg id in process, a read", apiErr(10158), false, history.Fail, history.ErrMsgIDInProcess},
		{"no responders, a read", nats.ErrNoResponders, false, history.Fail, history.ErrNoResponders},
		{"a dropped connection, a write", nats.ErrConnectionReconnecting, true, history.Info, history.ErrTimeout},
		{"other api error", apiErr(10077), true, history.Fail, history.ErrOther},
		{"unknown write", errors.New("boom"), true, history.Info, history.ErrOther},
		{"unknown read", errors.New("boom"), false, history.Fail, history.ErrOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var op history.Op
			recordErr(&op, c.err, c.mayApply)
			if op.Outcome != c.outcome || op.Err != c.kind {
				t.Fatalf("got %s/%s, want %s/%s", op.Outcome, op.Err, c.outcome, c.kind)
			}
		})
	}
}

func TestParseValue(t *testing.T) {
	cases := []struct {
		v    string
		p    string
		n    int
		good bool
	}{
		{"p3-17", "p3", 17, true}, {"p10-1", "p10", 1, true}, {"p3-0", "", 0, false}, {"x3-1", "", 0, false},
		{"p-1", "", 0, false}, {"pa-1", "", 0, false}, {"p3-", "", 0, false}, {"", "", 0, false},
	}
	for _, c := range cases {
		p, n, ok := parseValue(c.v)
		if ok != c.good || (ok && (p != c.p || n != c.n)) {
			t.Errorf("parseValue(%q) = %q %d %v", c.v, p, n, ok)
		}
	}
}
