package catchup

import (
	"io"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Every flag given lands on the preset's Options exactly, sizes whose
// String rounds (1234567 prints 1.18MiB) too; a flag not given keeps the
// preset's value, even where the flag's default differs
// (--max-memory-slope).
func TestFlagsOverPresetExact(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := BindFlags(fs)
	args := []string{"--preset=seed-loop", "--backlog=1234567,2GiB", "--rate=1234567", "--payload=1000", "--target=leader",
		"--down=1.5s", "--write-for=7s", "--memory-limit=1234567890", "--gomemlimit=1234567", "--max-outstanding-catchup=7654321",
		"--max-catchup-memory=3333333", "--catchup-timeout=3m3s", "--settle=0", "--verify-timeout=17s", "--crash-loop=9",
		"--sample-interval=20ms", "--publishers=7", "--window=33", "--publish-timeout=700ms", "--read-rate=0.125"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	all, err := f.All()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Preset("seed-loop")
	want.Backlog, want.Rate, want.Payload, want.Target = 1234567, 1234567, 1000, Leader
	want.Down, want.WriteFor, want.MemoryLimit, want.GoMemLimit = 1500*time.Millisecond, 7*time.Second, 1234567890, cluster.GoMemLimit(1234567)
	want.MaxOutstandingCatchup, want.MaxCatchupMemory, want.CatchupTimeout, want.Settle = 7654321, 3333333, 183*time.Second, 0
	want.VerifyTimeout, want.CrashLoop, want.SampleInterval = 17*time.Second, 9, 20*time.Millisecond
	want.Publishers, want.Window, want.PublishTimeout, want.ReadRate = 7, 33, 700*time.Millisecond, 0.125
	if len(all) != 2 || all[0] != want || all[1].Backlog != 2<<30 {
		t.Errorf("All =\n %+v\nwant\n %+v and one of 2GiB", all, want)
	}
	if err := fs.Parse([]string{"--max-memory-slope=0.5"}); err != nil {
		t.Fatal(err)
	}
	if o, _ := f.Options(); o.MaxMemorySlope != 0.5 || o.Settle != 0 {
		t.Errorf("--max-memory-slope 0.5 gave %g (settle %s)", o.MaxMemorySlope, o.Settle)
	}
}

// Once read, the flags print the cell's values, the preset's where no flag
// was given: chaos run's rerun command pins every workload flag at its
// printed value, so a rerun of --preset seed-loop must not print quick's.
func TestFlagsPrintThePresetsValues(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := BindFlags(fs)
	if err := fs.Parse([]string{"--preset=seed-loop", "--down=7s"}); err != nil {
		t.Fatal(err)
	}
	o, err := f.Options()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"backlog": "1GiB", "rate": "5MB", "gomemlimit": "off", "memory-limit": "384MiB",
		"crash-loop": "3", "publishers": "4", "catchup-timeout": "3m0s", "down": "7s"}
	for name, v := range want {
		if got := fs.Lookup(name).Value.String(); got != v {
			t.Errorf("--%s prints %q, want %q", name, got, v)
		}
	}
	// Reading the printed values back gives the same cell.
	again := pflag.NewFlagSet("y", pflag.ContinueOnError)
	g := BindFlags(again)
	var args []string
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "preset" {
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	if err := again.Parse(append(args, "--preset=seed-loop")); err != nil {
		t.Fatal(err)
	}
	if o2, err := g.Options(); err != nil || o2 != o {
		t.Errorf("the printed flags read back as\n %+v (%v), want\n %+v", o2, err, o)
	}
}
