package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMainStack(t *testing.T) {
	dump := "[1] 2026/12/05 13:14:58.724890 [WRN] Healthcheck failed\n" +
		"SIGQUIT: quit\nPC=0x4730e1 m=0 sigcode=0\n\n" +
		"goroutine 7 [select]:\nmain.other()\n\t/x.go:1\n\n" +
		"goroutine 1 [semacquire]:\nsync.(*WaitGroup).Wait(...)\n" +
		"github.com/nats-io/nats-server/v2/server.(*Server).EnableJetStream(...)\n\t/server/jetstream.go:400\n\n" +
		"goroutine 9 [IO wait]:\nnet.(*netFD).Accept()\n"
	for _, tc := range []struct{ name, log, want string }{
		{"no traceback", "[1] [INF] Server is ready\n", ""},
		{"goroutine 1 among others", dump, "goroutine 1 [semacquire]:\nsync.(*WaitGroup).Wait(...)\n" +
			"github.com/nats-io/nats-server/v2/server.(*Server).EnableJetStream(...)\n\t/server/jetstream.go:400"},
		{"goroutine 1 last, no blank line after", "x\ngoroutine 1 [running]:\nmain.main()", "goroutine 1 [running]:\nmain.main()"},
		{"gp= and m= in the header (nats-server v2.11.8 on SIGQUIT)", "x\ngoroutine 0 gp=0x12f47a0 m=0 mp=0x12f5980 [idle]:\nr()\n\ngoroutine 1 gp=0x436f237a1e0 m=nil [chan receive]:\nmain.main()\n\ngoroutine 2 gp=0x1 m=nil [force gc (idle)]:\n",
			"goroutine 1 gp=0x436f237a1e0 m=nil [chan receive]:\nmain.main()"},
		{"goroutine 10 is not goroutine 1", "x\ngoroutine 10 [running]:\nmain.f()\n", ""},
		{"the last dump of two", "x\ngoroutine 1 [old]:\na()\n\ny\ngoroutine 1 [new]:\nb()\n", "goroutine 1 [new]:\nb()\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mainStack(tc.log); got != tc.want {
				t.Errorf("mainStack = %q, want %q", got, tc.want)
			}
		})
	}
}

// A dump an earlier start left in the log is not this start's stack.
func TestStartupStackReadsOnlyPastTheOffset(t *testing.T) {
	n := &node{log: filepath.Join(t.TempDir(), "n1.log")}
	old := "x\ngoroutine 1 [old start]:\na()\n\n"
	if err := os.WriteFile(n.log, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	from := n.logSize()
	if got := n.startupStack(from); got != "" {
		t.Errorf("with no new dump: %q, want none", got)
	}
	f, err := os.OpenFile(n.log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("y\ngoroutine 1 [new start]:\nb()\n\n")
	f.Close()
	if got, want := n.startupStack(from), "  goroutine 1 [new start]:\n  b()"; got != want {
		t.Errorf("startupStack = %q, want %q", got, want)
	}
	if got := n.startupStack(0); !strings.Contains(got, "new start") {
		t.Errorf("from 0: %q, want the last dump", got)
	}
}
