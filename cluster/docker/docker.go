// Package docker runs a JetStream cluster as Docker containers: one private
// bridge network per cluster, one container per node, built FROM scratch with
// a static nats-server and the netfault helper, so nothing is ever pulled.
//
// Two clients talk to the same daemon:
//
//   - testcontainers-go (the issue asked for it) owns the lifecycle of what
//     a cluster creates: the private network (network.New, which names it
//     with a UUID, and DockerNetwork.Remove) and each node's container
//     (GenericContainer, fixed host ports and the rest of the host config
//     through HostConfigModifier, then Start, Stop, Inspect, Exec, Logs and
//     Terminate on the returned Container).
//   - The moby client does what testcontainers has no call for: ping,
//     building and inspecting the node image, kill with SIGKILL (Container
//     can only stop), pause and unpause, ContainerUpdate for memory limits,
//     the events stream (OOM kills), a log tail (Logs has no tail option),
//     Sweep by label, and a forced remove when Terminate cannot stop.
//
// What once kept testcontainers out does not apply to this split:
// Terminate deletes only images that testcontainers built itself, and the
// node image is built by image.go with the moby client, so it survives; the
// clients testcontainers closes early (NewDockerClientWithOpts and the
// provider's Close) only drop their idle connections and stay usable. A
// container request names our local tag with AlwaysPullImage off, and
// testcontainers pulls only a tag the daemon lacks, which image() has just
// checked. Ryuk is disabled (its image would be pulled), testcontainers is
// pinned to the socket the moby client uses (see tcRuntime), so its
// discovery dials nothing else, and its chatter goes to a silent logger.
package docker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/lazyfs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// tcProvider is the testcontainers runtime provider registered by init; see
// tcRuntime.
const tcProvider = "jetstream-chaos"

func init() {
	// Set before any testcontainers call: it reads its configuration once.
	// No Ryuk (its image would have to be pulled, and there is no registry),
	// and published ports are on localhost, so it never looks for (and
	// dials) the default gateway.
	os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	os.Setenv("TESTCONTAINERS_PROVIDER", tcProvider)
	if err := testcontainers.RegisterProvider(tcProvider, func() testcontainers.RuntimeProvider { return tcRuntime{} }); err != nil {
		panic(err) // only if discovery already ran or the name is taken: a bug
	}
	// The default logger prints a banner on the first connection and is what
	// network.New logs to; containers get quiet too (GenericContainerRequest).
	tclog.SetDefault(quiet)
}

// quiet discards testcontainers' lifecycle chatter ("Creating container",
// "Container started", ...): it would interleave with chaos run's output and
// says nothing our own errors do not.
var quiet = tclog.NewNoopLogger()

// tcRuntime pins testcontainers to the endpoint of the moby client (DOCKER_HOST
// or the default socket). Without it, testcontainers probes its own list of
// candidates first (tc.host in ~/.testcontainers.properties, which may name a
// remote service, then DOCKER_HOST, the default and rootless sockets), and the
// network and containers could land on another daemon than the one the moby
// client pauses, kills and watches. Only a local socket is pinned: for a tcp
// DOCKER_HOST, testcontainers' own discovery keeps its TLS settings.
type tcRuntime struct{}

func (tcRuntime) Initialize(context.Context) (testcontainers.RuntimeConfig, error) {
	cli, err := newClient()
	if err != nil {
		return testcontainers.RuntimeConfig{}, err
	}
	defer cli.Close()
	host := cli.DaemonHost()
	path, ok := strings.CutPrefix(host, "unix://")
	if !ok {
		return testcontainers.RuntimeConfig{}, nil
	}
	return testcontainers.RuntimeConfig{DockerHost: host, DockerSocketPath: path}, nil
}

// tcCheck refuses a testcontainers configuration that would pull our image:
// a Docker Hub prefix renames every unqualified image, jetstream-chaos/nats
// included, to a tag the daemon does not have.
func tcCheck() error {
	if p := testcontainers.ReadConfig().Config.HubImageNamePrefix; p != "" {
		return fmt.Errorf("testcontainers is configured with the Docker Hub prefix %q (hub.image.name.prefix in ~/.testcontainers.properties or TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX): it would look for %s/%s and pull it; unset it to use --runtime docker", p, p, ImageRepo)
	}
	return nil
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

// HookSelector is the `docker ps` filter that selects node {node} of the
// cluster started with runID, for a --fault-hook against a cluster of
// `chaos cluster up` (the hook fills in {node}).
func HookSelector(runID string) string {
	return "-f label=" + labelRun + "=" + runID + " -f label=" + labelNode + "={node}"
}

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
// process is gone (a killed run never reaches Close), then their power-loss
// store mounts (stale once their FUSE server died with the run), and this
// process's own leftovers. Clusters of other live processes (a concurrent run or test) are
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
		return n, errors.Join(append(errs, err, sweepMounts(&n))...)
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
	return n, errors.Join(append(errs, sweepMounts(&n))...)
}

// sweepMounts unmounts the lazyfs stores of dead owners, after their
// containers are gone, removes their server binaries' tmpfs copies
// (text.go), and adds them to n.
func sweepMounts(n *int) error {
	m, err := lazyfs.Sweep(ownerAlive)
	*n += m
	if errors.Is(err, fs.ErrNotExist) { // no /proc/self/mountinfo: no FUSE mounts either
		err = nil
	}
	return errors.Join(err, sweepText(n))
}

func isNotFound(err error) bool { return cerrdefs.IsNotFound(err) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
