package local

import "testing"

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
		{"Go 1.23's format (nats-server v2.11.8 on SIGQUIT)", "x\ngoroutine 0 gp=0x12f47a0 m=0 mp=0x12f5980 [idle]:\nr()\n\ngoroutine 1 gp=0x436f237a1e0 m=nil [chan receive]:\nmain.main()\n\ngoroutine 2 gp=0x1 m=nil [force gc (idle)]:\n",
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
