package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
)

// A manual cluster lives as long as its `chaos cluster up` process, so that
// nothing is left behind when that process dies; `down` signals it.
func clusterCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "cluster", Short: "Start or stop a cluster by hand"}
	var runtime, version, store, user, password string
	var detach bool
	up := &cobra.Command{
		Use:   "up",
		Short: "Start a 3-node cluster, print its URLs, and keep it until `chaos cluster down` or Ctrl-C",
		Long: `Up starts a 3-node cluster, prints its URLs and keeps it until ` + "`chaos cluster down`" + ` or Ctrl-C.
With --detach it returns once the cluster is ready and leaves it running in
the background (its output in <store>/cluster/up.log) until ` + "`chaos cluster down`" + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, _ := filepath.Abs(filepath.Join(store, "cluster"))
			if pid, err := readPid(dir); err == nil && syscall.Kill(pid, 0) == nil {
				return usageErr("a cluster is already up (pid %d); run `chaos cluster down` first", pid)
			}
			if password == "" {
				password = os.Getenv("NATS_PASSWORD")
			}
			// A run ID of its own, so that hooks select this cluster's
			// containers and no other's (HookSelectorFile).
			runID := fmt.Sprintf("manual-%s-%d", time.Now().UTC().Format("20060102T150405Z"), os.Getpid())
			cfg := cluster.Config{ServerVersion: version, Dir: dir, RunID: runID, ClientUser: user, ClientPassword: password}.WithDefaults()
			if err := cfg.Validate(); err != nil {
				return usageErr("%v (--user, --password or $NATS_PASSWORD)", err)
			}
			if detach {
				return upDetached(dir)
			}
			ctx, stop := interruptible("stopping the cluster")
			defer stop()
			rt, err := openRuntime(ctx, runtime, os.Stdout)
			if err != nil {
				return err
			}
			defer rt.cleanup()
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return harnessErr(err)
			}
			c, err := rt.Start(ctx, cfg)
			if err != nil {
				return harnessErr(fmt.Errorf("start cluster: %w", err))
			}
			defer func() {
				cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				_ = c.Close(cctx)
				_ = os.Remove(filepath.Join(dir, "pid"))
				_ = os.Remove(filepath.Join(dir, HookSelectorFile))
				_ = os.Remove(filepath.Join(dir, NetworkFile))
				fmt.Println("cluster down; logs in", filepath.Join(dir, "logs"))
			}()
			b, _ := json.MarshalIndent(c.Nodes(), "", "  ")
			_ = os.WriteFile(filepath.Join(dir, "nodes.json"), b, 0o644)
			v := cfg.ServerVersion
			if v == "" {
				v = serverbin.DefaultVersion()
			}
			fmt.Printf("cluster up (%s runtime, nats-server %s):\n", rt.Name(), v)
			var urls []string
			for _, n := range c.Nodes() {
				fmt.Printf("  %s  client %s  monitor %s\n", n.Name, n.ClientURL, n.MonitorURL)
				urls = append(urls, n.ClientURL)
			}
			login := ""
			if user != "" {
				login = fmt.Sprintf(` --user %s --password "$NATS_PASSWORD"`, user)
			}
			fmt.Printf("  nats --server %s%s stream ls\n", strings.Join(urls, ","), login)
			_ = os.Remove(filepath.Join(dir, HookSelectorFile))
			_ = os.Remove(filepath.Join(dir, NetworkFile))
			if nw, ok := c.(interface{ Network() string }); ok {
				_ = os.WriteFile(filepath.Join(dir, NetworkFile), []byte(nw.Network()+"\n"), 0o644)
				fmt.Printf("  a container on its network (docker run --network %s, also in %s) reaches node n1 at nats://n1:4222 and http://n1:8222\n",
					nw.Network(), filepath.Join(dir, NetworkFile))
			}
			if rt.Name() == "docker" {
				sel := docker.HookSelector(runID)
				_ = os.WriteFile(filepath.Join(dir, HookSelectorFile), []byte(sel+"\n"), 0o644)
				fmt.Printf("  fault hooks select its node {node} with: docker ps %s (also in %s)\n", sel, filepath.Join(dir, HookSelectorFile))
			}
			fmt.Println("stop it with `chaos cluster down` or Ctrl-C")
			// Last: a detached `up` waits for this file to say the cluster is ready.
			_ = os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
			<-ctx.Done()
			return nil
		},
	}
	down := &cobra.Command{
		Use:   "down",
		Short: "Stop the cluster started by `chaos cluster up`",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := filepath.Join(store, "cluster")
			pid, err := readPid(dir)
			if err != nil {
				return usageErr("no cluster is up (no %s)", filepath.Join(dir, "pid"))
			}
			if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
				_ = os.Remove(filepath.Join(dir, "pid"))
				return usageErr("no cluster is up (pid %d is gone)", pid)
			}
			for i := 0; i < 600 && syscall.Kill(pid, 0) == nil; i++ {
				time.Sleep(100 * time.Millisecond)
			}
			if syscall.Kill(pid, 0) == nil {
				return harnessErr(errors.New("the cluster did not stop within 60s"))
			}
			fmt.Println("cluster down")
			return nil
		},
	}
	for _, c := range []*cobra.Command{up, down} {
		c.Flags().StringVar(&store, "store", "store", "folder that holds the cluster's configs, logs and pid")
	}
	up.Flags().StringVar(&runtime, "runtime", "auto", "auto, docker or local")
	up.Flags().StringVar(&version, "server-version", "", "nats-server version (vX.Y.Z); empty: the pinned default")
	up.Flags().BoolVar(&detach, "detach", false, "return once the cluster is ready and keep it running in the background")
	up.Flags().StringVar(&user, "user", "", "turn client authentication on: clients log in as this user (JetStream in its own account)")
	up.Flags().StringVar(&password, "password", "", "the --user's password ($NATS_PASSWORD when not given; kept in memory, the configs hold its bcrypt hash)")
	cmd.AddCommand(up, down)
	return cmd
}

// HookSelectorFile, in <store>/cluster, holds the docker filter that
// selects one node of the cluster `chaos cluster up` started on the docker
// runtime, for --fault-hook commands: sel="$(cat store/cluster/hook-selector)".
const HookSelectorFile = "hook-selector"

// NetworkFile, in <store>/cluster, names the docker network of the cluster
// `chaos cluster up` started, for a chaos container run on it (the image's
// --runtime external): docker run --network "$(cat store/cluster/network)".
const NetworkFile = "network"

func readPid(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}
