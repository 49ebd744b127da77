package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/moby/moby/api/types/build"
	"github.com/moby/moby/client"
)

// ImageRepo is the repository of node images; tags are <version>-<hash>.
const ImageRepo = "jetstream-chaos/nats"

const modulePath = "github.com/jetstream-chaos/jetstream-chaos"

// No "# syntax=" line: it makes the builder pull a frontend image.
const dockerfile = `FROM scratch
COPY nats-server /nats-server
COPY netfault /netfault
ENTRYPOINT ["/nats-server"]
CMD ["-c", "/etc/nats/nats.conf"]
`

var (
	// coldSalt, when set (by the cold-start benchmark), gives a fresh tag and
	// an uncached build without touching the shared image others may use.
	coldSalt string

	imageMu  sync.Mutex
	netfault []byte                // built once per process
	images   = map[string]string{} // version -> tag, known to exist
)

// Image returns the tag of the node image for a nats-server version ("" is
// the pinned default), building the image if the daemon lacks it. The tag
// hashes both binaries, so a changed netfault or server gets a new image and
// an unchanged one is reused across runs.
func Image(ctx context.Context, version string) (string, error) {
	cli, err := newClient()
	if err != nil {
		return "", err
	}
	defer cli.Close()
	return image(ctx, cli, version)
}

func image(ctx context.Context, cli *client.Client, version string) (string, error) {
	if version == "" {
		version = serverbin.DefaultVersion()
	}
	imageMu.Lock()
	defer imageMu.Unlock()
	if tag, ok := images[version]; ok {
		if _, err := cli.ImageInspect(ctx, tag); err == nil {
			return tag, nil
		}
	}
	server, err := serverbin.Path(ctx, version)
	if err != nil {
		return "", err
	}
	sb, err := os.ReadFile(server)
	if err != nil {
		return "", err
	}
	if netfault == nil {
		if netfault, err = buildNetfault(ctx); err != nil {
			return "", err
		}
	}
	tag := imageTag(version, sb, netfault)
	// Parallel test binaries or runs must not build the same tag twice: the
	// loser's image would be left dangling.
	unlock, err := serverbin.Lock("image-" + version)
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := cli.ImageInspect(ctx, tag); err == nil {
		images[version] = tag
		return tag, nil
	}
	tarball, err := buildContext(map[string][]byte{"Dockerfile": []byte(dockerfile), "nats-server": sb, "netfault": netfault})
	if err != nil {
		return "", err
	}
	res, err := cli.ImageBuild(ctx, bytes.NewReader(tarball), client.ImageBuildOptions{
		Tags:        []string{tag},
		Labels:      map[string]string{LabelKey: imageValue, LabelKey + ".server-version": version},
		NoCache:     coldSalt != "",
		Remove:      true,
		ForceRemove: true,
		Version:     build.BuilderV1, // BuildKit would want a frontend image
	})
	if err != nil {
		return "", fmt.Errorf("build image %s: %w", tag, err)
	}
	defer res.Body.Close()
	if err := buildOutcome(res.Body); err != nil {
		return "", fmt.Errorf("build image %s: %w", tag, err)
	}
	if _, err := cli.ImageInspect(ctx, tag); err != nil {
		return "", fmt.Errorf("build image %s: no image after the build: %w", tag, err)
	}
	images[version] = tag
	return tag, nil
}

// imageTag is ImageRepo:<version>-<12 hex digits of the content hash>.
func imageTag(version string, server, netfault []byte) string {
	h := sha256.New()
	for _, b := range [][]byte{[]byte(dockerfile + coldSalt), server, netfault} {
		fmt.Fprintf(h, "%d:", len(b)) // length-prefixed: no two inputs hash alike
		h.Write(b)
	}
	// A local build's "+dirty" is no tag character.
	return ImageRepo + ":" + strings.ReplaceAll(version, "+", "_") + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// buildContext is a tar of the files, in name order, executables 0755.
func buildContext(files map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		mode := int64(0o755)
		if n == "Dockerfile" {
			mode = 0o644
		}
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: mode, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(files[n]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// buildOutcome reads the daemon's JSON progress stream to its end and returns
// the error it reports, if any (an HTTP 200 does not mean the build worked).
func buildOutcome(r io.Reader) error {
	dec := json.NewDecoder(r)
	var last string
	for {
		var m struct {
			Stream      string `json:"stream"`
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading build output: %w", err)
		}
		if m.Error != "" || m.ErrorDetail.Message != "" {
			msg := m.ErrorDetail.Message
			if msg == "" {
				msg = m.Error
			}
			if last != "" {
				msg = last + ": " + msg
			}
			return fmt.Errorf("%s", oneLine(msg))
		}
		if s := strings.TrimSpace(m.Stream); s != "" {
			last = s
		}
	}
}

// buildNetfault compiles cmd/netfault statically from the module's source.
func buildNetfault(ctx context.Context) ([]byte, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "netfault-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "netfault")
	// -trimpath and no build info paths keep the bytes, and so the image
	// tag, the same from run to run.
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/netfault")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building netfault: %v: %s", err, shorten(oneLine(string(out)), 300))
	}
	return os.ReadFile(bin)
}

// moduleRoot finds the jetstream-chaos source checkout from the working
// directory: the netfault helper is built from it.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Path}}\t{{.Dir}}").Output()
	if err == nil {
		if root, ok := findModule(string(out)); ok {
			return root, nil
		}
	}
	return "", fmt.Errorf("the docker runtime builds its netfault helper from source: run chaos from inside the %s checkout, with the go tool on PATH", modulePath)
}

func findModule(goListOut string) (string, bool) {
	for _, line := range strings.Split(goListOut, "\n") {
		if path, dir, ok := strings.Cut(strings.TrimSpace(line), "\t"); ok && path == modulePath && dir != "" {
			return dir, true
		}
	}
	return "", false
}
