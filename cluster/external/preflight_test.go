package external

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestPreflightNamesTheMissingPermission runs the check as users that lack
// one permission each, on one server, and as one that has them all.
func TestPreflightNamesTheMissingPermission(t *testing.T) {
	deny := func(name string, subjects ...string) *server.User {
		return &server.User{Username: name, Password: "pw", Permissions: &server.Permissions{
			Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: subjects}}}
	}
	users := []*server.User{
		{Username: "admin", Password: "pw"},
		// Exactly the grants the README lists for a user of its own account.
		{Username: "minimal", Password: "pw", Permissions: &server.Permissions{
			Publish: &server.SubjectPermission{Allow: []string{"$JS.API.INFO", "$JS.API.STREAM.CREATE.*", "$JS.API.STREAM.UPDATE.*",
				"$JS.API.STREAM.INFO.*", "$JS.API.STREAM.DELETE.*", "$JS.API.STREAM.MSG.GET.*", "$JS.API.DIRECT.GET.>",
				"$JS.API.CONSUMER.>", "$JS.API.STREAM.LEADER.STEPDOWN.*", "$KV.>"}},
			Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>"}}}},
		deny("noinfo", "$JS.API.INFO"),
		deny("nocreate", "$JS.API.STREAM.CREATE.>"),
		deny("nopublish", "$KV.>"),
		deny("nodirect", "$JS.API.DIRECT.GET.>"),
		deny("noupdate", "$JS.API.STREAM.UPDATE.>"),
		deny("noconsumer", "$JS.API.CONSUMER.>"),
		deny("nostepdown", "$JS.API.STREAM.LEADER.STEPDOWN.>"),
		deny("nodelete", "$JS.API.STREAM.DELETE.>"),
		deny("noack", "$JS.ACK.>"),
		{Username: "noinbox", Password: "pw", Permissions: &server.Permissions{Subscribe: &server.SubjectPermission{Deny: []string{"_INBOX.>"}}}},
	}
	tc := startCluster(t, 1, func(_ int, o *server.Options) { o.Users = users })
	st := kvStream("chaos_p", 1)
	// queue's stream: read by acking pull consumers, never through Direct Get.
	queue := Stream{Name: "chaos_q", Filter: "chaos_q.>", Subject: "chaos_q.probe", Replicas: 1, Acks: true}
	// batch's and counter's: the probe stream allows what theirs do, and
	// is written as they write theirs.
	batch := Stream{Name: "chaos_b", Filter: "chaos_b.>", Subject: "chaos_b.probe", Replicas: 1, DirectGet: true, AtomicPublish: true}
	counter := Stream{Name: "chaos_c", Filter: "chaos_c.>", Subject: "chaos_c.probe", Replicas: 1, DirectGet: true, Counters: true}
	cases := []struct {
		user     string
		stepdown bool
		want     string // "" = passes
		stream   *Stream
	}{
		{"admin", true, "", nil},
		{"admin", true, "", &queue},
		{"admin", true, "", &batch},
		{"admin", true, "", &counter},
		{"nodirect", false, `with Direct Get: Permissions Violation for Publish to "$JS.API.DIRECT.GET.chaos_b_preflight.`, &batch},
		{"noack", false, "", nil}, // kv-update acks nothing
		{"noack", false, `to read stream chaos_q_preflight with a durable pull consumer and acknowledge: Permissions Violation for Publish to "$JS.ACK.chaos_q_preflight.chaos_preflight`, &queue},
		{"nodirect", false, "", &queue}, // queue reads nothing through Direct Get
		{"noupdate", false, "", &queue}, // nor turns it off
		{"minimal", true, "", nil},
		{"nostepdown", false, "", nil}, // no stepdown fault: not needed
		{"noinfo", false, `to read the JetStream account info: Permissions Violation for Publish to "$JS.API.INFO"`, nil},
		{"nocreate", false, `to create stream KV_chaos_p_preflight (R1): Permissions Violation for Publish to "$JS.API.STREAM.CREATE.KV_chaos_p_preflight"`, nil},
		{"nopublish", false, `to publish to $KV.chaos_p.probe: Permissions Violation for Publish to "$KV.chaos_p.probe"`, nil},
		{"nodirect", false, `with Direct Get: Permissions Violation for Publish to "$JS.API.DIRECT.GET.KV_chaos_p_preflight.`, nil},
		{"noupdate", false, `to update stream KV_chaos_p_preflight: Permissions Violation for Publish to "$JS.API.STREAM.UPDATE.KV_chaos_p_preflight"`, nil},
		{"noconsumer", false, `with an ordered consumer: Permissions Violation for Publish to "$JS.API.CONSUMER.CREATE.KV_chaos_p_preflight.`, nil},
		{"nostepdown", true, `to step down the leader of stream KV_chaos_p_preflight: Permissions Violation for Publish to "$JS.API.STREAM.LEADER.STEPDOWN.KV_chaos_p_preflight"`, nil},
		{"nodelete", false, `to delete stream KV_chaos_p_preflight: Permissions Violation for Publish to "$JS.API.STREAM.DELETE.KV_chaos_p_preflight"; the probe stream KV_chaos_p_preflight is left: delete it by hand`, nil},
		{"noinbox", false, `Permissions Violation for Subscription to "_INBOX.`, nil},
	}
	ctx := context.Background()
	admin, err := nats.Connect(tc.options().Servers[0], nats.UserInfo("admin", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	js, _ := jetstream.New(admin)
	for _, c := range cases {
		t.Run(c.user, func(t *testing.T) {
			probe := st
			if c.stream != nil {
				probe = *c.stream
			}
			created, err := admin.SubscribeSync("$JS.EVENT.ADVISORY.STREAM.CREATED." + probe.Name)
			if err != nil {
				t.Fatal(err)
			}
			defer created.Unsubscribe()
			probed, _ := admin.SubscribeSync("$JS.EVENT.ADVISORY.STREAM.CREATED." + probe.ProbeName())
			defer probed.Unsubscribe()
			// The server must hold both interests before the preflight runs:
			// unflushed, a loaded machine once sent them after the probe's
			// create, and its advisory went to nobody.
			if err := admin.Flush(); err != nil {
				t.Fatal(err)
			}
			o := tc.options()
			o.ConnectTimeout = 5e9
			o.Auth = Auth{User: c.user, Password: "pw"}
			o.Streams = []Stream{probe}
			rt := newRuntime(t, o)
			if _, err := rt.Survey(ctx); err != nil {
				t.Fatal(err)
			}
			err = rt.Preflight(ctx, c.stepdown)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("preflight: %v", err)
			case c.want != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
				t.Errorf("preflight: %v\nwant one refusal line containing %s", err, c.want)
			}
			if _, err := js.Stream(ctx, probe.ProbeName()); !errors.Is(err, jetstream.ErrStreamNotFound) {
				if c.user != "nodelete" {
					t.Errorf("the probe stream is left: %v", err)
				}
				js.DeleteStream(ctx, probe.ProbeName())
			}
			// The probe's own advisory arrives: so would the run stream's.
			if _, err := probed.NextMsg(5 * time.Second); err != nil && c.want == "" {
				t.Errorf("no advisory of the probe stream's create: %v", err)
			}
			if n, _, _ := created.Pending(); n > 0 {
				t.Errorf("the preflight created the run's own stream %s: its next create could hold the probe's message (repro/streamrecreate)", probe.Name)
			}
		})
	}
	t.Run("stream exists", func(t *testing.T) {
		// A name no case above used. With the probe's name, a clean-clone
		// CI run found a message in this new stream: nats-server v2.15.3
		// (standalone, file storage) can create a stream that holds the
		// last message of a just-deleted stream of the same name (a loop
		// of create, publish, delete, create shows it within 20 rounds
		// here, even 200 ms after the delete). That is the server's, not
		// the preflight's; this test is about the preflight.
		st := kvStream("chaos_exists", 1)
		if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: st.Name, Subjects: []string{st.Filter}}); err != nil {
			t.Fatal(err)
		}
		defer js.DeleteStream(ctx, st.Name)
		o := tc.options()
		o.Auth, o.Streams = Auth{User: "admin", Password: "pw"}, []Stream{st}
		rt := newRuntime(t, o)
		if _, err := rt.Survey(ctx); err != nil {
			t.Fatal(err)
		}
		if err := rt.Preflight(ctx, false); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "stream KV_chaos_exists already exists and is not this run's") {
			t.Errorf("preflight: %v", err)
		}
		if s, err := js.Stream(ctx, st.Name); err != nil || s.CachedInfo().State.Msgs != 0 {
			t.Errorf("the existing stream was touched: %v", err)
		}
	})
}

func TestPreflightRefusesAnAccountWithoutJetStream(t *testing.T) {
	tc := startCluster(t, 1, func(_ int, o *server.Options) { o.JetStream = false })
	o := tc.options()
	o.ConnectTimeout = 5e9
	o.Streams = []Stream{kvStream("chaos_p", 1)}
	rt := newRuntime(t, o)
	ctx := context.Background()
	// Survey's readiness reads /healthz?js-enabled-only, which a server
	// without JetStream answers with OK: the account check is Preflight's.
	if _, err := rt.Survey(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rt.Preflight(ctx, false); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "JetStream is not enabled for this account") {
		t.Errorf("preflight: %v", err)
	}
}

// No responders before JetStream ever answered means JetStream is off; after
// it answered, a moment without a subscriber (a stream leader or consumer
// that just moved) is asked again within the step's time, and says so if
// it lasts.
//
// A placement refusal (10005) is asked again too: a meta leader that has
// not yet heard from every peer answers it for a moment. One that lasts is
// refused, and so is any other refusal, at once.
func TestPreflightStepAsksAgainWhatPasses(t *testing.T) {
	noPeers := &jetstream.APIError{Code: 500, ErrorCode: client.CodeNoPeers, Description: "no suitable peers for placement, peer offline"}
	other := &jetstream.APIError{Code: 400, ErrorCode: 10074, Description: "replicas > 1 not supported in non-clustered mode"}
	tests := []struct {
		name     string
		answered bool
		err      error
		fails    int // attempts that get err before one succeeds
		want     string
	}{
		{"JetStream never answered", false, nats.ErrNoResponders, 1, "JetStream is not enabled for this account"},
		{"a moment without a subscriber", true, nats.ErrNoResponders, 3, ""},
		{"no subscriber for the whole step", true, nats.ErrNoResponders, 1 << 30, "although JetStream answered the steps before"},
		{"a placement refusal for a moment", false, noPeers, 3, ""},
		{"a placement refusal for the whole step", true, noPeers, 1 << 30, "peer offline for 500ms: a server is down"},
		{"another refusal", true, other, 1, "not supported in non-clustered mode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &preflight{timeout: 500 * time.Millisecond, answered: tc.answered}
			calls := 0
			err := p.step(context.Background(), "read a stream", func(context.Context) error {
				calls++
				if calls <= tc.fails {
					return tc.err
				}
				return nil
			})
			switch {
			case tc.want == "" && (err != nil || calls != tc.fails+1):
				t.Errorf("err %v after %d calls, want success on call %d", err, calls, tc.fails+1)
			case tc.want != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err %v, want a refusal saying %q", err, tc.want)
			case tc.err == other && calls != 1:
				t.Errorf("another refusal was asked %d times, want once", calls)
			}
		})
	}
}

// TestKeptFeatures: a server that predates a feature creates the stream
// without it and says nothing; the config it answers is what tells.
func TestKeptFeatures(t *testing.T) {
	batch, counter := Stream{AtomicPublish: true}, Stream{Counters: true}
	cases := []struct {
		s    Stream
		got  jetstream.StreamConfig
		want string // "" = kept
	}{
		{Stream{}, jetstream.StreamConfig{}, ""},
		{batch, jetstream.StreamConfig{AllowAtomicPublish: true}, ""},
		{counter, jetstream.StreamConfig{AllowMsgCounter: true}, ""},
		{batch, jetstream.StreamConfig{}, "without allow_atomic: it predates atomic batch publish (ADR-50, nats-server 2.12.0)"},
		{counter, jetstream.StreamConfig{AllowAtomicPublish: true}, "without allow_msg_counter: it predates distributed counters (ADR-49, nats-server 2.12.0)"},
	}
	for _, c := range cases {
		err := keptFeatures(c.s, c.got)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v kept in %+v: %v", c.s, c.got, err)
		case c.want != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want a refusal containing %q", c.s, err, c.want)
		}
	}
}
