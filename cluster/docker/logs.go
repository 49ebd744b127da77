package docker

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// saveLog writes a node's whole log (nats-server logs to stderr) to
// Dir/logs/<name>.log.
func (c *dockerCluster) saveLog(ctx context.Context, n *node) error {
	r, err := c.cli.ContainerLogs(ctx, n.id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.Create(filepath.Join(c.cfg.Dir, "logs", n.name+".log"))
	if err != nil {
		return err
	}
	if _, err := stdcopy.StdCopy(f, f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// logTail is the last lines of a container's log, indented.
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
