package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Which files of a node's store a corruption changes. The layout is
// nats-server's (filestore.go, raft.go; seen in real stores of v2.15.3):
//
//	jetstream/<account>/streams/<stream>/msgs/<n>.blk      the stream's message blocks
//	jetstream/$SYS/_js_/<group>/msgs/<n>.blk              its raft group's log (WAL), a filestore too
//	jetstream/$SYS/_js_/<group>/snapshots/snap.<term>.<index>  the raft group's snapshots
//
// where <group> is the stream's raft group (/jsz stream_raft_group,
// S-R3F-...). The newest file of the class is changed: the highest block
// number with data, the snapshot of the highest term and index.
const (
	classBlock    = "block"
	classWAL      = "wal"
	classSnapshot = "snapshot"
)

var fileClasses = []string{classBlock, classWAL, classSnapshot}

// bitflipCount is how many bits a bitflip flips, at distinct offsets.
const bitflipCount = 4

// maxNamedBlock bounds the block a bitflip reads to name the fields it
// hit; nats-server's blocks are at most 8 MiB (filestore.go maxBlockSize).
const maxNamedBlock = 64 << 20

// corrupt changes the newest file of a class on a minority of nodes: it
// stops each (gracefully, so nothing else is left half written), flips
// random bits in the file or cuts its tail at a random offset, reads the
// file back to check the change is there, and records the file, offsets
// and bytes. Healing starts the nodes and checks they are back with full
// routes. Every choice comes from Env.Rand.
type corrupt struct {
	truncate bool // else bitflip
	class    string
}

func (c corrupt) Name() string {
	if c.truncate {
		return "truncate=" + c.class
	}
	return "bitflip=" + c.class
}

func (c corrupt) Needs() []cluster.Capability {
	return []cluster.Capability{cluster.CapStop, cluster.CapStoreFiles}
}

func (c corrupt) Inject(ctx context.Context, env *Env) (Active, error) {
	if env.Stream == "" {
		return nil, fmt.Errorf("%s: no workload stream whose files to change", c.Name())
	}
	// A runtime may refuse store files for this cluster alone (a store on
	// tmpfs): find out before stopping anything.
	if err := env.Cluster.Supports(cluster.CapStoreFiles); err != nil {
		return nil, withContext(c.Name(), err)
	}
	n := len(env.nodes())
	if n == 0 {
		return nil, fmt.Errorf("%s: the cluster has no nodes", c.Name())
	}
	targets := env.rng().Perm(n)[:max(1, (n-1)/2)]
	slices.Sort(targets)
	// The raft group's directory is named after the group, which only a
	// running node reports.
	groups := make(map[int]string)
	if c.class != classBlock {
		for _, i := range targets {
			s, ok, err := env.localStream(ctx, env.nodes()[i])
			switch {
			case err != nil:
				return nil, withContext(c.Name()+": raft group of "+env.Stream+" on "+env.name(i), err)
			case !ok || s.RaftGroup == "":
				return nil, fmt.Errorf("%s: %s does not report the raft group of stream %s", c.Name(), env.name(i), env.Stream)
			}
			groups[i] = s.RaftGroup
		}
	}
	a := &active{targets: env.names(targets)}
	a.heal = func(ctx context.Context) Check {
		c := startAll(ctx, env, targets)
		c.Detail += "; " + env.holdings(ctx, targets)
		return c
	}
	var checks []Check
	for _, i := range targets {
		ch, err := c.corruptNode(ctx, env, i, groups[i])
		if err != nil {
			return a, err
		}
		checks = append(checks, ch)
	}
	a.check = joinChecks(checks)
	return a, nil
}

// corruptNode stops node i and changes its file. An error means the node
// may be down with nothing changed; a failed check, that the change could
// not be made or seen.
func (c corrupt) corruptNode(ctx context.Context, env *Env, i int, group string) (Check, error) {
	name := env.name(i)
	env.logf("nemesis: %s on %s", c.Name(), name)
	if err := env.Cluster.Stop(ctx, i); err != nil {
		return Check{}, withContext("stop "+name, err)
	}
	env.markEffect()
	ok, took, seen := within(ctx, env.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
		return env.down(ctx, i)
	})
	if !ok {
		// Changing the files of a running node is not the fault: leave them.
		return Check{Detail: fmt.Sprintf("%s not down within %s, store left alone: %s", name, secs(took), seen)}, nil
	}
	dir, err := env.Cluster.StoreDir(i)
	if err != nil {
		return Check{}, withContext("store of "+name, err)
	}
	file, err := newestFile(dir, c.class, env.Stream, group)
	if err != nil {
		return Check{}, fmt.Errorf("%s on %s: %w", c.Name(), name, err)
	}
	rel, _ := filepath.Rel(dir, file)
	var change string
	if c.truncate {
		change, err = truncateTail(file, env.rng())
	} else {
		change, err = flipBits(file, env.rng())
	}
	if err != nil {
		return Check{Detail: fmt.Sprintf("%s: %s: %v", name, rel, err)}, nil
	}
	return Check{OK: true, Detail: fmt.Sprintf("%s stopped after %s; %s: %s", name, secs(took), rel, change)}, nil
}

// newestFile finds the file of class in a node's store directory.
func newestFile(dir, class, stream, group string) (string, error) {
	var pattern string
	switch class {
	case classBlock:
		pattern = filepath.Join(dir, "jetstream", "*", "streams", stream, "msgs", "*.blk")
	case classWAL:
		pattern = filepath.Join(dir, "jetstream", "*", "_js_", group, "msgs", "*.blk")
	case classSnapshot:
		pattern = filepath.Join(dir, "jetstream", "*", "_js_", group, "snapshots", "snap.*.*")
	}
	files, err := filepath.Glob(pattern)
	if err != nil {
		return "", err
	}
	best, bestKey := "", []int64(nil)
	for _, f := range files {
		key, ok := fileOrder(filepath.Base(f))
		if fi, err := os.Stat(f); !ok || err != nil || fi.Size() == 0 || !fi.Mode().IsRegular() {
			continue
		}
		if best == "" || slices.Compare(key, bestKey) > 0 {
			best, bestKey = f, key
		}
	}
	if best == "" {
		rel, _ := filepath.Rel(dir, pattern)
		return "", fmt.Errorf("no %s file with data matches %s", class, rel)
	}
	return best, nil
}

// fileOrder is the number a block ("12.blk") or the term and index a
// snapshot ("snap.3.1200") is named by, for picking the newest.
func fileOrder(base string) ([]int64, bool) {
	var parts []string
	if n, ok := strings.CutSuffix(base, ".blk"); ok {
		parts = []string{n}
	} else if ti, ok := strings.CutPrefix(base, "snap."); ok {
		parts = strings.Split(ti, ".")
	}
	if len(parts) == 0 {
		return nil, false
	}
	key := make([]int64, len(parts))
	for k, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, false
		}
		key[k] = v
	}
	return key, true
}

// flipBits flips one random bit at each of bitflipCount distinct random
// offsets (fewer in a smaller file), reads them back, and says what
// changed: in a block, which record field each flip hit.
func flipBits(path string, rng *rand.Rand) (string, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := fi.Size()
	// The block as it was, to name the record field each flip hits.
	var before []byte
	if strings.HasSuffix(path, ".blk") && size <= maxNamedBlock {
		if before, err = os.ReadFile(path); err != nil {
			return "", err
		}
	}
	offsets := map[int64]bool{}
	var changes []string
	for len(offsets) < int(min(bitflipCount, size)) {
		off := rng.Int64N(size)
		if offsets[off] {
			continue
		}
		offsets[off] = true
		var b [1]byte
		if _, err := f.ReadAt(b[:], off); err != nil {
			return "", err
		}
		old, bit := b[0], rng.IntN(8)
		want := old ^ 1<<bit
		if _, err := f.WriteAt([]byte{want}, off); err != nil {
			return "", err
		}
		if _, err := f.ReadAt(b[:], off); err != nil || b[0] != want {
			return "", fmt.Errorf("offset %d reads back 0x%02x, not the 0x%02x written (%v)", off, b[0], want, err)
		}
		change := fmt.Sprintf("offset %d 0x%02x->0x%02x", off, old, want)
		if field := recordField(before, off, bit); field != "" {
			change += " (" + field + ")"
		}
		changes = append(changes, change)
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d bits flipped in %d bytes: %s", len(changes), size, strings.Join(changes, ", ")), nil
}

// truncateTail cuts the file at a random offset (at least one byte goes),
// checks its new size, and says what was cut.
func truncateTail(path string, rng *rand.Rand) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	size := fi.Size()
	if size == 0 {
		return "", errors.New("the file is empty")
	}
	cut := rng.Int64N(size)
	if err := os.Truncate(path, cut); err != nil {
		return "", err
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != cut {
		return "", fmt.Errorf("truncated to %d bytes but reads back %v (%v)", cut, fi.Size(), err)
	}
	return fmt.Sprintf("cut at offset %d: %d of its %d bytes removed", cut, size-cut, size), nil
}

// holdings says, for the record, how much of the stream the targets and the
// leader hold right after the restart: what the server made of the changed
// file (dropped a block's tail, rebuilt from peers, refused the stream).
func (e *Env) holdings(ctx context.Context, targets []int) string {
	var parts []string
	leader, _ := e.streamLeader(ctx)
	idx := targets
	if i := e.index(leader); i >= 0 && !slices.Contains(targets, i) {
		idx = append(slices.Clone(targets), i)
	}
	for _, i := range idx {
		n := e.nodes()[i]
		role := ""
		if n.Name == leader {
			role = " (leader)"
		}
		s, ok, err := e.localStream(ctx, n)
		switch {
		case err != nil:
			parts = append(parts, fmt.Sprintf("%s%s: %v", n.Name, role, err))
		case !ok:
			parts = append(parts, fmt.Sprintf("%s%s has no stream %s", n.Name, role, e.Stream))
		default:
			parts = append(parts, fmt.Sprintf("%s%s holds %d messages, last seq %d", n.Name, role, s.State.Msgs, s.State.LastSeq))
		}
	}
	return "stream " + e.Stream + " right after: " + strings.Join(parts, ", ")
}
