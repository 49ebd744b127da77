package client

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// RequireAPILevel refuses a server whose JetStream API level (account
// info, nats-server 2.11+) is below level, in one line naming feature and
// the release that brought it (since). A workload calls it at setup: a
// cluster it did not start, or a release range, escapes the version check
// made before the run (workloads.Plan.Since).
func RequireAPILevel(ctx context.Context, js jetstream.JetStream, level int, feature, since string) error {
	var got int
	err := RetryTransient(ctx, 30*time.Second, func(ctx context.Context) error {
		info, err := js.AccountInfo(ctx)
		if err == nil {
			got = info.API.Level
		}
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("account info (for the JetStream API level): %w", err)
	case got < level:
		return fmt.Errorf("%s needs nats-server %s or later (JetStream API level %d); this server reports level %d", feature, since, level, got)
	}
	return nil
}
