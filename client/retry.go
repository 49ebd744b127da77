package client

import (
	"context"
	"fmt"
	"time"
)

// RetryTransient calls do until it succeeds, fails for good (an error
// neither Transient nor a placement refusal, see below), or bound passes;
// each try has 5 s.
// Workloads use it for the idempotent requests of their setup (creating a
// stream or consumer with the same config again changes nothing): on a
// cluster that just became ready, or on a loaded machine, the first
// JetStream requests can time out while the meta leader settles (seen in
// make test as "create stream: context deadline exceeded"). In setup, a
// placement refusal (10005, "no suitable peers for placement, peer
// offline") is transient too: the meta leader places an asset only on
// peers whose statistics it has received (nats-server server.go,
// nodeInfo.selectable), and right after a cluster is ready it may not have
// them all yet (2 of 18 cells lost at bucket creation before this). A
// lasting refusal, a stream larger than the cluster, still ends at bound
// with its own error.
func RetryTransient(ctx context.Context, bound time.Duration, do func(context.Context) error) error {
	deadline := time.Now().Add(bound)
	tries := 0
	for {
		tries++
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := do(tctx)
		cancel()
		if err == nil || !transientInSetup(err) || ctx.Err() != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w (still failing after %d tries within %s)", err, tries, bound)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// transientInSetup is Transient, or the meta leader's placement refusal.
func transientInSetup(err error) bool {
	return Classify(err).Transient() || PlacementRefused(err)
}

// PlacementRefused says whether err is the meta leader's refusal to place
// a stream (10005, "no suitable peers for placement"): in setup, right
// after a cluster is ready, a refusal that passes (see RetryTransient).
func PlacementRefused(err error) bool {
	e := Classify(err)
	return e.Cause == Refused && e.Code == CodeNoPeers
}
