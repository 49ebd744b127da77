package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// CreateStream creates the stream cfg describes, as a workload's setup
// does: it asks again while the answer is transient (RetryTransient,
// within 30 s), refuses a stream whose config lacks a feature cfg asks for
// (keptFeatures), and then, when ready is positive, waits up to ready for
// the stream to have a leader and its cfg.Replicas-1 followers current. A
// ready of 0 returns the stream as its creation answered it. Every error
// is one line naming the stream; a failed creation reads "create stream
// NAME: ...".
func CreateStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig, ready time.Duration) (jetstream.Stream, error) {
	var s jetstream.Stream
	// A fresh cluster may still be settling its meta leader and peers.
	err := RetryTransient(ctx, 30*time.Second, func(ctx context.Context) (err error) {
		s, err = js.CreateStream(ctx, cfg)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create stream %s: %w", cfg.Name, err)
	}
	if err := keptFeatures(cfg, s.CachedInfo().Config); err != nil {
		return nil, err
	}
	if ready <= 0 {
		return s, nil
	}
	followers := max(cfg.Replicas, 1) - 1
	deadline := time.Now().Add(ready)
	for {
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		s, err := js.Stream(ictx, cfg.Name)
		cancel()
		var last any = err
		if err == nil {
			ci := s.CachedInfo().Cluster
			if settled(ci, followers) {
				return s, nil
			}
			last = describe(ci)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("stream %s has no leader with %d current replicas after %gs (last: %v)",
				cfg.Name, followers, ready.Seconds(), last)
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// StreamInfo is stream's info as js answers it within timeout.
func StreamInfo(ctx context.Context, js jetstream.JetStream, stream string, timeout time.Duration) (*jetstream.StreamInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	return s.CachedInfo(), nil
}

// StreamLeader names stream's leader as its info (StreamInfo) gives it; an
// error reads "stream info: ..." or "stream info names no leader".
func StreamLeader(ctx context.Context, js jetstream.JetStream, stream string, timeout time.Duration) (string, error) {
	info, err := StreamInfo(ctx, js, stream, timeout)
	if err != nil {
		return "", fmt.Errorf("stream info: %w", err)
	}
	if info.Cluster == nil || info.Cluster.Leader == "" {
		return "", errors.New("stream info names no leader")
	}
	return info.Cluster.Leader, nil
}

// settled says whether the stream has a leader and followers current
// replicas: until then a fault, or the data a workload writes first, meets
// a replica still catching up.
func settled(ci *jetstream.ClusterInfo, followers int) bool {
	if ci == nil || ci.Leader == "" || len(ci.Replicas) != followers {
		return false
	}
	for _, p := range ci.Replicas {
		if !p.Current {
			return false
		}
	}
	return true
}

// describe is the stream's cluster as the readiness error reports it.
func describe(ci *jetstream.ClusterInfo) string {
	if ci == nil {
		return "no cluster info"
	}
	current := 0
	for _, p := range ci.Replicas {
		if p.Current {
			current++
		}
	}
	return fmt.Sprintf("leader %q, %d of %d replicas current", ci.Leader, current, len(ci.Replicas))
}

// keptFeatures refuses a created stream whose config (got) lacks a
// feature asked (cfg): a server older than a feature decodes the config
// without the field it does not know, creates the stream and says
// nothing, so only the config it answers shows the difference.
func keptFeatures(cfg, got jetstream.StreamConfig) error {
	switch {
	case got.AllowDirect != cfg.AllowDirect:
		return fmt.Errorf("stream %s has allow_direct %v, asked %v", cfg.Name, got.AllowDirect, cfg.AllowDirect)
	case cfg.AllowAtomicPublish && !got.AllowAtomicPublish:
		return fmt.Errorf("stream %s has allow_atomic false, asked true: the server predates atomic batch publish (ADR-50, nats-server 2.12.0)", cfg.Name)
	case cfg.AllowMsgCounter && !got.AllowMsgCounter:
		return fmt.Errorf("stream %s has allow_msg_counter false, asked true: the server predates distributed counters (ADR-49, nats-server 2.12.0)", cfg.Name)
	case cfg.AllowMsgSchedules && !got.AllowMsgSchedules:
		return fmt.Errorf("stream %s has allow_msg_schedules false, asked true: the server predates message schedules (ADR-51, nats-server 2.12.0)", cfg.Name)
	case cfg.AllowMsgTTL && !got.AllowMsgTTL:
		return fmt.Errorf("stream %s has allow_msg_ttl false, asked true: the server predates per-message TTLs (ADR-43, nats-server 2.11.0)", cfg.Name)
	}
	return nil
}
