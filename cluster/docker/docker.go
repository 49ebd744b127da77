// Package docker runs a JetStream cluster as Docker containers: one private
// bridge network per cluster, one container per node, built FROM scratch with
// a static nats-server and the netfault helper, so nothing is ever pulled.
//
// It talks to the daemon with the moby client directly: testcontainers adds
// nothing needed here (no pause, no fixed host ports, and Terminate deletes
// images it built), so it is not used.
package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

func init() {
	// Anything in this process that reaches testcontainers must neither pull
	// Ryuk (there is no registry) nor dial the default gateway (forbidden).
	os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
}

// Labels on everything this package creates.
const (
	// LabelKey marks our objects: containers and networks carry
	// LabelKey=runValue, node images LabelKey=imageValue.
	LabelKey     = "io.jetstream-chaos"
	runValue     = "run"
	imageValue   = "node-image"
	labelOwner   = LabelKey + ".owner"   // the creating process, see owner.go
	labelRun     = LabelKey + ".run"     // Config.RunID
	labelCluster = LabelKey + ".cluster" // unique per started cluster
	labelNode    = LabelKey + ".node"    // n1, n2, ...
)

func newClient() (*client.Client, error) {
	// API version negotiation is on by default; the daemon here speaks 1.41.
	return client.New(client.FromEnv)
}

// Available says in one line why Docker cannot be used, or nil.
func Available(ctx context.Context) error {
	cli, err := newClient()
	if err != nil {
		return fmt.Errorf("docker client: %v: fix DOCKER_HOST or use --runtime local", oneLine(err.Error()))
	}
	defer cli.Close()
	return ping(ctx, cli)
}

func ping(ctx context.Context, cli *client.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		return fmt.Errorf("no Docker daemon answers at %s (%s): start Docker or use --runtime local",
			cli.DaemonHost(), shorten(oneLine(err.Error()), 120))
	}
	return nil
}

// Sweep removes the containers and networks of ours left by runs whose
// process is gone (a killed run never reaches Close), and this process's own
// leftovers. Clusters of other live processes (a concurrent run or test) are
// kept. Call it at start and at exit, when none of this process's clusters
// should be running. It returns how many objects it removed.
func Sweep(ctx context.Context) (int, error) {
	cli, err := newClient()
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	f := make(client.Filters).Add("label", LabelKey+"="+runValue)
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, c := range cs.Items {
		if ownerAlive(c.Labels[labelOwner]) {
			continue
		}
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !isNotFound(err) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return n, errors.Join(append(errs, err)...)
	}
	for _, nw := range ns.Items {
		if ownerAlive(nw.Labels[labelOwner]) {
			continue
		}
		if _, err := cli.NetworkRemove(ctx, nw.ID, client.NetworkRemoveOptions{}); err != nil && !isNotFound(err) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

func isNotFound(err error) bool { return cerrdefs.IsNotFound(err) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
