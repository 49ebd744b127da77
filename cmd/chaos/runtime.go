package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/local"
)

// chosenRuntime is the runtime a command uses, with its end-of-run cleanup.
type chosenRuntime struct {
	cluster.Runtime
	cleanup func()
}

// openRuntime resolves --runtime. auto means docker when a daemon answers,
// else local, and says which it picked and why. Docker leftovers of killed
// runs are swept by label before and after.
func openRuntime(ctx context.Context, name string, out io.Writer) (chosenRuntime, error) {
	switch name {
	case "docker":
		if err := docker.Available(ctx); err != nil {
			return chosenRuntime{}, harnessErr(err)
		}
	case "local":
		fmt.Fprintln(out, "runtime: local (nats-server processes on 127.0.0.1)")
		return chosenRuntime{Runtime: local.New(), cleanup: func() {}}, nil
	case "auto":
		if err := docker.Available(ctx); err != nil {
			fmt.Fprintf(out, "runtime: local (no Docker: %v)\n", err)
			return chosenRuntime{Runtime: local.New(), cleanup: func() {}}, nil
		}
	case "external":
		return chosenRuntime{}, usageErr("--runtime external connects to a cluster you run: use it with `chaos run` (see --server)")
	default:
		return chosenRuntime{}, usageErr("--runtime %q: want auto, docker, local or external", name)
	}
	fmt.Fprintln(out, "runtime: docker (3 containers on a private network, ports on 127.0.0.1)")
	sweep := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if n, err := docker.Sweep(ctx); err != nil {
			fmt.Fprintf(out, "sweep leftovers: %v\n", err)
		} else if n > 0 {
			fmt.Fprintf(out, "removed %d leftover container(s)/network(s) of earlier runs\n", n)
		}
	}
	sweep()
	return chosenRuntime{Runtime: docker.New(), cleanup: sweep}, nil
}
