package findings

import (
	"debug/buildinfo"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
)

// env is what a finding takes from the binary that writes it, for the
// versions a stored run does not record. Tests fix it.
type env struct {
	// clientVersion is nats.go's version in this binary, for a run whose
	// results.json does not name it yet (the pipeline writes the finding
	// before the run's results.json, and this binary ran the clients).
	clientVersion string
	// clientIsRun says this binary ran the cell's clients (the pipeline
	// writing the finding of the cell it just judged).
	clientIsRun bool
	// goVersion is the Go this binary was built with.
	goVersion string
	// serverGo is the Go the cached nats-server of a version was built
	// with, "" when that binary is not there.
	serverGo func(version string) string
}

func defaultEnv() env {
	e := env{goVersion: runtime.Version(), serverGo: cachedServerGo}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/nats-io/nats.go" {
				e.clientVersion = d.Version
				if d.Replace != nil {
					e.clientVersion = d.Replace.Version
				}
			}
		}
	}
	return e
}

// cachedServerGo reads the Go version from the build info of the
// nats-server binary serverbin cached for version.
func cachedServerGo(version string) string {
	bi, err := buildinfo.ReadFile(filepath.Join(serverbin.CacheDir(), "nats-server", version, "nats-server"))
	if err != nil {
		return ""
	}
	return bi.GoVersion
}
