package nemesis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// stepdown asks the workload stream's leader to step down through the
// JetStream API ($JS.API.STREAM.LEADER.STEPDOWN.<stream>) and checks that
// another node became leader. Its target is the old leader. There is nothing
// to heal; healing checks that the stream still has a leader.
type stepdown struct{}

func (stepdown) Name() string                { return "stepdown" }
func (stepdown) Needs() []cluster.Capability { return nil }

func (stepdown) Inject(ctx context.Context, env *Env) (Active, error) {
	if env.JS == nil {
		return nil, errors.New("stepdown: no JetStream client in the nemesis environment")
	}
	if env.Stream == "" {
		return nil, errors.New("stepdown: no workload stream to step down")
	}
	old, err := env.streamLeader(ctx)
	if err != nil {
		return nil, fmt.Errorf("stepdown: %w", err)
	}
	a := &active{targets: []string{old}}
	a.heal = func(ctx context.Context) Check {
		l, err := env.streamLeader(ctx)
		if err != nil {
			return Check{Detail: err.Error()}
		}
		return Check{OK: true, Detail: "stream leader is " + l}
	}
	subj := apiPrefix(env.JS) + "STREAM.LEADER.STEPDOWN." + env.Stream
	env.logf("nemesis: stepdown %s (leader %s)", env.Stream, old)
	rctx, cancel := context.WithTimeout(ctx, 2*env.probeTimeout())
	defer cancel()
	msg, err := env.JS.Conn().RequestWithContext(rctx, subj, nil)
	env.markEffect()
	if err != nil {
		// The request may still have reached the leader: check anyway.
		a.check = Check{Detail: fmt.Sprintf("%s: %v", subj, err)}
	} else if apiErr := apiError(msg.Data); apiErr != "" {
		a.check = Check{Detail: fmt.Sprintf("%s refused: %s", subj, apiErr)}
		return a, nil
	}
	ok, took, seen := env.leaderMoved(ctx, old)
	switch {
	case ok && a.check.Detail == "":
		a.check = Check{OK: true, Detail: fmt.Sprintf("%s after %s", seen, secs(took))}
	case ok:
		a.check.Detail += fmt.Sprintf("; yet %s after %s", seen, secs(took))
	default:
		a.check = Check{Detail: strings.TrimPrefix(a.check.Detail+"; ", "; ") + fmt.Sprintf("leader did not move within %s: %s", secs(took), seen)}
	}
	return a, nil
}

// apiError is a JetStream API response's refusal, or "" on success.
func apiError(data []byte) string {
	var r struct {
		Success bool `json:"success"`
		Error   *struct {
			Code        int    `json:"code"`
			ErrCode     int    `json:"err_code"`
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return "bad response: " + oneLine(data)
	}
	if r.Error != nil {
		return fmt.Sprintf("%d %s (err_code %d)", r.Error.Code, r.Error.Description, r.Error.ErrCode)
	}
	if !r.Success {
		return "success=false: " + oneLine(data)
	}
	return ""
}

// apiPrefix is the JetStream API prefix the client uses, with a trailing dot.
func apiPrefix(js jetstream.JetStream) string {
	o := js.Options()
	p := jetstream.DefaultAPIPrefix
	switch {
	case o.APIPrefix != "":
		p = o.APIPrefix
	case o.Domain != "":
		p = "$JS." + o.Domain + ".API"
	}
	if !strings.HasSuffix(p, ".") {
		p += "."
	}
	return p
}
