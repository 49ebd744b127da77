package nemesis

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
)

// wipe kills a random node and deletes its store; healing starts it empty
// so that it must catch up from its peers.
//
// Injecting checks that the node is down (as kill does) and that the
// runtime deleted the store. Healing checks that the store really was empty:
// where the runtime shows the store's files (CapStoreFiles), that its
// directory holds none just before the start; elsewhere, that the first
// time the restarted node's /jsz shows the workload stream it holds fewer
// messages than the node itself reported just before the kill (a node that
// kept its store reloads it whole before the stream appears in /jsz). The
// directory comes first because /jsz can lose a race: a small stream caught
// up before the first reading once (6,367 messages, 6,211 before the wipe,
// with readings every 10 ms). Then it waits until the node is healthy
// (/healthz, which includes the catch-up) with routes to every peer.
type wipe struct{}

func (wipe) Name() string { return "wipe" }

func (wipe) Needs() []cluster.Capability {
	return []cluster.Capability{cluster.CapKill, cluster.CapWipe}
}

func (wipe) Inject(ctx context.Context, env *Env) (Active, error) {
	n := len(env.nodes())
	if n == 0 {
		return nil, fmt.Errorf("wipe: the cluster has no nodes")
	}
	i := env.pickNode(n)
	node := env.nodes()[i]
	a := &active{targets: []string{node.Name}}

	// What the node holds before: the baseline the restart is compared to.
	before, had := uint64(0), false
	if env.Stream != "" {
		if s, ok, err := env.localStream(ctx, node); err == nil && ok {
			before, had = s.State.Msgs, true
		}
	}
	env.logf("nemesis: wipe %s (holds %d messages of %s)", node.Name, before, env.Stream)
	a.heal = func(ctx context.Context) Check { return startAgain(ctx, env, i) }
	called := time.Now()
	if err := env.Cluster.Kill(ctx, i); err != nil {
		return a, withContext("wipe", withContext("kill "+node.Name, err))
	}
	env.markEnded(ctx, called, i)
	ok, took, seen := within(ctx, env.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
		return env.down(ctx, i)
	})
	if !ok {
		// Wiping a running node is not allowed: leave it, report it.
		a.check = Check{Detail: fmt.Sprintf("wipe: %s not down within %s, store left alone: %s", node.Name, secs(took), seen)}
		return a, nil
	}
	if err := env.Cluster.Wipe(ctx, i); err != nil {
		return a, withContext("wipe "+node.Name, err)
	}
	a.check = Check{OK: true, Detail: fmt.Sprintf("%s killed after %s and its store deleted", node.Name, secs(took))}
	a.heal = func(ctx context.Context) Check { return restartWiped(ctx, env, i, before, had) }
	return a, nil
}

func restartWiped(ctx context.Context, env *Env, i int, before uint64, had bool) Check {
	name := env.name(i)
	start := time.Now()
	// Watch from before Start: a small stream can catch up within
	// milliseconds of the node's monitor answering, and Start may return
	// later than that.
	type sighting struct {
		msgs uint64
		ok   bool
	}
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	sighted := make(chan sighting, 1)
	go func() {
		var s sighting
		if env.Stream != "" {
			for pctx.Err() == nil && !s.ok {
				if d, ok, err := env.localStream(pctx, env.nodes()[i]); err == nil && ok {
					s = sighting{d.State.Msgs, true}
					break
				}
				ctxtime.Sleep(pctx, 10*time.Millisecond)
			}
		}
		sighted <- s
	}()
	disk := storeOnDisk(env, i)
	if err := env.Cluster.Start(ctx, i); err != nil {
		stop()
		<-sighted
		return Check{Detail: withContext("start "+name, err).Error()}
	}
	var s sighting
	if env.Stream != "" {
		select {
		case s = <-sighted:
		case <-time.After(env.verifyWithin()):
			stop()
			s = <-sighted
		}
	}
	seen, first := s.ok, s.msgs
	var empty Check
	switch {
	case disk.known && disk.files > 0:
		empty.Detail = fmt.Sprintf("store not empty: %d file(s) in %s at the restart, %s", disk.files, name, disk.example)
	case disk.known:
		empty = Check{OK: true, Detail: fmt.Sprintf("store empty: no file in %s's store directory at the restart", name)}
		if seen && before > 0 {
			empty.Detail += fmt.Sprintf("; it first showed %d messages (had %d)", first, before)
		}
	case env.Stream == "":
		empty.Detail = "store emptiness not observed: no workload stream"
	case !had:
		empty.Detail = fmt.Sprintf("store emptiness not observed: %s did not report stream %s before the wipe", name, env.Stream)
	case !seen:
		empty.Detail = fmt.Sprintf("store emptiness not observed: %s did not show stream %s within %s", name, env.Stream, secs(env.verifyWithin()))
	case before == 0:
		empty.Detail = fmt.Sprintf("store emptiness not observable: stream %s was empty on %s before the wipe", env.Stream, name)
	case first >= before:
		empty.Detail = fmt.Sprintf("store not seen empty: %s came back with %d messages, had %d", name, first, before)
	default:
		empty = Check{OK: true, Detail: fmt.Sprintf("store empty: %s came back with %d of its %d messages", name, first, before)}
	}
	ok, _, last := within(ctx, env.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
		if ok, s := env.up(ctx, i); !ok {
			return false, s
		}
		return env.healthy(ctx, env.nodes()[i])
	})
	took := time.Since(start)
	if !ok {
		return Check{Detail: fmt.Sprintf("%s; %s not healthy within %s: %s", empty.Detail, name, secs(took), last)}
	}
	return Check{OK: empty.OK, Detail: fmt.Sprintf("%s; healthy and caught up after %s", empty.Detail, secs(took))}
}

// diskStore is what a node's store directory held: known false where the
// runtime does not show it.
type diskStore struct {
	known   bool
	files   int
	example string // one file's path in the store, when there are files
}

// storeOnDisk counts the regular files in node i's store directory; a
// directory that is gone holds none.
func storeOnDisk(env *Env, i int) diskStore {
	if env.Cluster.Supports(cluster.CapStoreFiles) != nil {
		return diskStore{}
	}
	dir, err := env.Cluster.StoreDir(i)
	if err != nil {
		return diskStore{}
	}
	var d diskStore
	err = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil && path == dir && errors.Is(err, fs.ErrNotExist) {
			return fs.SkipAll // deleted with its directory (the local runtime)
		}
		if err != nil {
			return err
		}
		if e.Type().IsRegular() {
			if d.files++; d.example == "" {
				d.example, _ = filepath.Rel(dir, path)
			}
		}
		return nil
	})
	d.known = err == nil
	return d
}
