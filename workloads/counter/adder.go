package counter

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// incrHeader is the header that makes a publish to a counter stream an add
// (ADR-49; orbit.go counters.CounterIncrementHeader). The workload writes
// the add itself, as orbit.go's Add does, because Add takes no Nats-Msg-Id.
const incrHeader = "Nats-Incr"

// adder is one client adding to the counters on its own connection.
type adder struct {
	idx      int
	js       jetstream.JetStream
	counters []string
	rng      *rand.Rand
	o        Options
	n        int
}

// add tries one add of a random delta to a random counter: a publish with
// a Nats-Msg-Id unique in the run, retried under the same id while it may
// have applied (a timeout, a lost connection) or nothing took it, up to
// o.Retries times. It is acknowledged when an attempt was (the ack names
// the total unless it answered a duplicate), refused when every attempt
// was refused for sure, and indeterminate otherwise.
func (p *adder) add(ctx context.Context) Add {
	p.n++
	a := Add{ID: strconv.Itoa(p.idx) + "." + strconv.Itoa(p.n), Counter: p.counters[p.rng.IntN(len(p.counters))],
		Delta: p.o.delta(p.rng), Outcome: history.Fail, Client: p.idx, Op: -1}
	mayHave := false
	for a.Attempts <= p.o.Retries && ctx.Err() == nil {
		a.Attempts++
		m := nats.NewMsg(a.Counter)
		m.Header.Set(incrHeader, strconv.FormatInt(a.Delta, 10))
		m.Header.Set(jetstream.MsgIDHeader, a.ID)
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.o.Timeout) // the run's end waits for the attempt under way
		ack, err := p.js.PublishMsg(actx, m)
		cancel()
		if err == nil {
			a.Outcome = history.OK
			if ack.Value != "" && !ack.Duplicate {
				a.Total, err = strconv.ParseInt(ack.Value, 10, 64)
				a.Told = err == nil
			}
			return a
		}
		c := client.Classify(err)
		a.Err, a.ErrCode, a.ErrMsg = c.Kind, c.Code, c.Msg
		mayHave = mayHave || c.MayHaveApplied()
		if c.Cause == client.Refused && !c.MayHaveApplied() {
			break // a definite refusal: asking again under the same id changes nothing
		}
		if c.Cause == client.NoResponders {
			time.Sleep(20 * time.Millisecond) // nothing took it: no busy loop
		}
	}
	if mayHave {
		a.Outcome = history.Info
	}
	return a
}

// delta is a random add: 1..MaxDelta, either sign when Mixed.
func (o Options) delta(rng *rand.Rand) int64 {
	d := int64(1 + rng.IntN(o.MaxDelta))
	if o.Mixed && rng.IntN(2) == 0 {
		d = -d
	}
	return d
}

// counterValue reads a counter message's body, {"val":"N"}.
func counterValue(data []byte) (int64, error) {
	var body struct {
		Val string `json:"val"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return 0, fmt.Errorf("counter body %q: %w", data, err)
	}
	return strconv.ParseInt(body.Val, 10, 64)
}
