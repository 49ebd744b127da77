package serverbin

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestPathRejectsMalformedVersion(t *testing.T) {
	for _, v := range []string{"2.10.7", "v2.10", "latest", "v2.10.7; rm -rf /"} {
		_, err := Path(context.Background(), v)
		if err == nil || !strings.Contains(err.Error(), "not of the form") {
			t.Errorf("Path(%q) = %v, want a form error", v, err)
		}
	}
}

func TestBuildErrorIsOneLineNamingTheVersion(t *testing.T) {
	cases := []struct{ out, want string }{
		{"go: github.com/nats-io/nats-server/v2@v9.9.9: reading https://x/@v/v9.9.9.info: 403 Forbidden\n", "not served by the Go module proxy"},
		{"go: ...@v9.9.9: invalid version: unknown revision v9.9.9\nmore\n", "not served by the Go module proxy"},
		{"compile error\nline two\n", "compile error"},
	}
	for _, c := range cases {
		err := buildError("v9.9.9", c.out, errors.New("exit status 1"))
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "v9.9.9") || strings.Contains(err.Error(), "\n") {
			t.Errorf("buildError(%q) = %q, want one line with %q", c.out, err, c.want)
		}
	}
}

func TestDefaultVersionIsWellFormed(t *testing.T) {
	if v := DefaultVersion(); !versionRE.MatchString(v) {
		t.Fatalf("DefaultVersion() = %q", v)
	}
}

func TestFallbackMatchesGoMod(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", module).Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != fallbackVersion {
		t.Fatalf("go.mod pins nats-server %s but fallbackVersion is %s: update serverbin.go", got, fallbackVersion)
	}
}
