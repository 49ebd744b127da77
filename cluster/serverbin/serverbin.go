// Package serverbin builds static nats-server binaries of any released
// version from the Go module proxy and caches them on disk per version.
// No registry or prebuilt download is needed: only `go install`. A build
// of a local checkout, or a binary the user built, is cached beside them
// under a name of its commit (local.go).
package serverbin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
)

const module = "github.com/nats-io/nats-server/v2"

// fallbackVersion is the default when the binary does not link nats-server
// (chaos itself does not: it runs the server, it does not embed it), so
// build info cannot name it. TestFallbackMatchesGoMod keeps it equal to the
// version go.mod pins.
const fallbackVersion = "v2.15.3"

// DefaultVersion is the nats-server version pinned in go.mod.
func DefaultVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == module {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return fallbackVersion
}

// ErrNotServed means the Go module proxy has no such nats-server version.
var ErrNotServed = errors.New("not served by the Go module proxy")

var versionRE = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.\-]+)?$`)

// CacheDir is where binaries live: $JSCHAOS_CACHE, else the user cache dir.
func CacheDir() string {
	if d := os.Getenv("JSCHAOS_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "jetstream-chaos")
	}
	return filepath.Join(os.TempDir(), "jetstream-chaos")
}

var mu sync.Mutex // one build at a time; two runs may share the cache

// Cached says whether version's binary is already built.
func Cached(version string) bool {
	if version == "" {
		version = DefaultVersion()
	}
	fi, err := os.Stat(filepath.Join(CacheDir(), "nats-server", version, "nats-server"))
	return err == nil && fi.Mode().IsRegular() && fi.Size() > 0
}

// Path returns the cached binary for version, building it if needed.
func Path(ctx context.Context, version string) (string, error) {
	if version == "" {
		version = DefaultVersion()
	}
	dir := filepath.Join(CacheDir(), "nats-server", version)
	bin := filepath.Join(dir, "nats-server")
	if IsLocal(version) { // built by FromSource or FromBinary, which cached it, or a commit of Commits
		mu.Lock()
		c, listed := commits[version]
		mu.Unlock()
		if listed && !Cached(version) {
			return bin, buildCommit(ctx, version, c)
		}
		if !Cached(version) {
			return "", fmt.Errorf("nats-server %s is a local build that is not in %s: give its --server-source or --server-bin again", version, CacheDir())
		}
		return bin, nil
	}
	if !versionRE.MatchString(version) {
		return "", fmt.Errorf("nats-server version %q is not of the form vX.Y.Z", version)
	}
	mu.Lock()
	defer mu.Unlock()
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Another process (a parallel test binary, a second run) may be building
	// the same version: wait for it rather than build twice.
	unlock, err := lockFile(filepath.Join(dir, "build.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		return bin, nil
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, "go", "install", module+"@"+version)
	cmd.Dir = tmp // outside any module, so go.mod and vendoring do not interfere
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", buildError(version, out.String(), err)
	}
	// Rename is atomic, so a half-written binary is never cached.
	if err := os.Rename(filepath.Join(tmp, "nats-server"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// buildError turns go's multi-line output into one line that names the version.
func buildError(version, out string, err error) error {
	if _, lookErr := exec.LookPath("go"); lookErr != nil {
		return fmt.Errorf("building nats-server %s needs the go tool on PATH", version)
	}
	low := strings.ToLower(out)
	for _, s := range []string{"unknown revision", "invalid version", "no matching versions", "not found", "403 forbidden", "410 gone"} {
		if strings.Contains(low, s) {
			return fmt.Errorf("nats-server %s is %w", version, ErrNotServed)
		}
	}
	first := strings.TrimSpace(out)
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	return fmt.Errorf("building nats-server %s failed: %v: %s", version, err, first)
}

// Lock takes a cache-wide lock by name, across processes, for other
// one-time builds (the Docker node image), and returns its release.
func Lock(name string) (func(), error) {
	if err := os.MkdirAll(CacheDir(), 0o755); err != nil {
		return nil, err
	}
	return lockFile(filepath.Join(CacheDir(), name+".lock"))
}

// lockFile takes an exclusive advisory lock on path, blocking until it is
// free, and returns its release.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
