package docker

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// saveLog writes a node's whole log (nats-server logs to stderr) to
// Dir/logs/<name>.log, read through testcontainers, which merges stdout and
// stderr in order.
func (c *dockerCluster) saveLog(ctx context.Context, n *node) error {
	r, err := n.ctr.Logs(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.Create(filepath.Join(c.cfg.Dir, "logs", n.slot+".log"))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// logTail is the last lines of a container's log, indented. The moby client:
// testcontainers' Logs has no tail option and would read the whole log.
func (c *dockerCluster) logTail(ctx context.Context, id string, lines int) (string, error) {
	r, err := c.cli.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Tail: strconv.Itoa(lines)})
	if err != nil {
		return "", err
	}
	defer r.Close()
	var buf bytes.Buffer
	if _, err := stdcopy.StdCopy(&buf, &buf, r); err != nil {
		return "", err
	}
	s := strings.TrimRight(buf.String(), "\n")
	return "  " + strings.ReplaceAll(s, "\n", "\n  "), nil
}
