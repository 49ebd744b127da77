package schedule

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// --schedule-stream limits,workqueue is two cells told apart by their
// tag, the other flags reach both, each survives run.json, and each plans
// its streams and the release its schedules need.
func TestFlagsExpandDecodeAndPlan(t *testing.T) {
	w, err := workloads.Get(Name)
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	expand := w.Flags(fs)
	if err := fs.Parse([]string{"--schedule-stream", "limits,workqueue", "--repeating", "0", "--fire-bound", "7s"}); err != nil {
		t.Fatal(err)
	}
	cells, err := expand(func(string) bool { return false })
	if err != nil || len(cells) != 2 {
		t.Fatalf("cells %v, %v", cells, err)
	}
	for k, want := range []string{RetentionLimits, RetentionWorkQueue} {
		o := cells[k].(Options)
		if o.Retention != want || o.Repeating != 0 || o.FireBound.String() != "7s" || o.Validate(3) != nil {
			t.Errorf("cell %d: %+v (%v)", k, o, o.Validate(3))
		}
		if tags := o.Tags(); tags[0].Value != want {
			t.Errorf("cell %d tags %v", k, tags)
		}
		raw, _ := json.Marshal(o)
		back, err := w.Decode(raw)
		if err != nil || !reflect.DeepEqual(back, o) {
			t.Errorf("decode %+v, %v; want %+v", back, err, o)
		}
		p := o.Plan(cluster.Config{})
		if p.Since != SinceAt || p.Streams[0].Name != "SCHED" {
			t.Errorf("cell %d plan %+v", k, p)
		}
		if want == RetentionWorkQueue && (len(p.Streams) != 2 || p.Streams[1].Name != "SCHED_TARGETS") {
			t.Errorf("work-queue plan streams %+v", p.Streams)
		}
	}
	if p := Defaults.Plan(cluster.Config{}); p.Since != SinceEvery {
		t.Errorf("repeating schedules plan since %s", p.Since)
	}
	if n := Defaults.Named("run1").(Options); n.Stream != "run1" || n.Targets() != "run1" {
		t.Errorf("named %+v", n)
	}
}

// A work-queue cell's targets stream sources only the targets, and its
// schedule stream allows schedules and roll-ups (the server wants both).
func TestStreams(t *testing.T) {
	o := Defaults
	o.Retention = RetentionWorkQueue
	cfgs := o.streams()
	if len(cfgs) != 2 || !cfgs[0].AllowMsgSchedules || !cfgs[0].AllowRollup || cfgs[0].Retention.String() != "WorkQueue" {
		t.Fatalf("%+v", cfgs)
	}
	if src := cfgs[1].Sources; len(src) != 1 || src[0].Name != "SCHED" || src[0].FilterSubject != "SCHED.target.>" || cfgs[1].AllowMsgSchedules {
		t.Errorf("targets stream %+v", cfgs[1])
	}
}
