package nemesis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// The fake's network shaping, store files and membership: the parts of
// cluster.Cluster and the cluster API that the data-loss faults use.

// fakeNet is a node's loss and rate; its counters grow on every read while
// the shaping is in force, as traffic would make them.
type fakeNet struct {
	loss  float64
	rate  uint64
	stats cluster.NetStats
}

func (f *fake) SetLoss(_ context.Context, i int, percent float64) error {
	ok, err := f.do("loss", i)
	if ok {
		f.mu.Lock()
		f.nodes[i].net.loss = percent
		f.mu.Unlock()
	}
	return err
}

func (f *fake) SetRate(_ context.Context, i int, bytesPerSec uint64) error {
	ok, err := f.do("rate", i)
	if ok {
		f.mu.Lock()
		f.nodes[i].net.rate = bytesPerSec
		f.mu.Unlock()
	}
	return err
}

func (f *fake) NetStats(_ context.Context, i int) (cluster.NetStats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	nd := f.nodes[i]
	if !nd.running || nd.paused != nil {
		return cluster.NetStats{}, fmt.Errorf("%s: netfault stats: the node is not running", nd.name)
	}
	s := &nd.net.stats
	s.LossPercent, s.Rate = nd.net.loss, nd.net.rate
	if s.LossPercent > 0 {
		s.LossSeen += 100
		s.LossDropped += uint64(s.LossPercent)
	} else {
		s.LossSeen, s.LossDropped = 0, 0 // the rules and their counters are gone
	}
	if s.Rate > 0 {
		s.RatePackets += 10
		s.RateBytes += 10 * 1500
	} else {
		s.RatePackets, s.RateBytes = 0, 0
	}
	return *s, nil
}

// StoreDir is a directory per node under the fake's own, made on first use.
func (f *fake) StoreDir(i int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir == "" {
		d, err := os.MkdirTemp("", "nemesis-fake-")
		if err != nil {
			return "", err
		}
		f.dir = d
	}
	dir := filepath.Join(f.dir, cluster.NodeName(i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// A store holds a block until a wipe deletes it.
	if !f.nodes[i].storeGone {
		if err := os.WriteFile(filepath.Join(dir, "1.blk"), []byte("block"), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// StartAs renames a down node; it joins the meta group under the new name,
// as a fresh server does, and starts.
func (f *fake) StartAs(ctx context.Context, i int, name string) error {
	if ok, err := f.do("start-as", i); !ok {
		return err
	}
	f.mu.Lock()
	if f.nodes[i].running {
		f.mu.Unlock()
		return fmt.Errorf("start %s as %s: running", f.nodes[i].name, name)
	}
	f.nodes[i].name = name
	f.metaPeers = append(f.metaPeers, name)
	f.mu.Unlock()
	return f.Start(ctx, i)
}

// fakeMembers is the cluster API on the fake: a removed stream peer is
// replaced by a running meta member that holds no replica yet.
type fakeMembers struct{ f *fake }

func (m fakeMembers) close() {}

func (m fakeMembers) removeStreamPeer(_ context.Context, stream, peer string) error {
	f := m.f
	if ok, err := f.do("remove-stream-peer", 0); !ok {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	k := slices.Index(f.streamPeers, peer)
	if stream != fakeStream || k < 0 {
		return errors.New("400 peer not a member (err_code 10040)")
	}
	for _, p := range f.metaPeers {
		if !slices.Contains(f.streamPeers, p) && f.runningName(p) {
			f.streamPeers[k] = p
			return nil
		}
	}
	return errors.New("400 peer remap failed (err_code 10075)")
}

func (m fakeMembers) removeServer(_ context.Context, server string) error {
	f := m.f
	if ok, err := f.do("remove-server", 0); !ok {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	k := slices.Index(f.metaPeers, server)
	if k < 0 {
		return errors.New("400 server is not a member of the cluster (err_code 10044)")
	}
	f.metaPeers = slices.Delete(f.metaPeers, k, k+1)
	return nil
}
