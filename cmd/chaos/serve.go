package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/serve"
)

func serveCmd() *cobra.Command {
	var port int
	cmd := &cobra.Command{
		Use:   "serve [STORE]",
		Short: "Serve a store on 127.0.0.1: its index, every report and file, and the run in progress (/live)",
		Long: `Serve serves the store folder (default "store") over HTTP on the loopback
only: index.html and every run's report.html and files, and /live, a page
that follows the run in progress (the store's latest run, or ?run=FOLDER)
as it goes: its live line, its phase and its fault windows. Ctrl-C stops it.`,
		Example: "  chaos serve store --port 8080   # then open http://127.0.0.1:8080/live",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store := "store"
			if len(args) == 1 {
				store = args[0]
			}
			if fi, err := os.Stat(store); err != nil || !fi.IsDir() {
				return usageErr("serve: %s is not a store folder (chaos run --store writes one)", store)
			}
			if port < 0 || port > 65535 {
				return usageErr("--port %d: want 0 (a free port) to 65535", port)
			}
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				return usageErr("--port %d: %v", port, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "serving %s at http://%s/ (the run in progress: %s); Ctrl-C stops\n", store, ln.Addr(), serve.LivePath)
			srv := &http.Server{Handler: serve.Handler(store), ReadHeaderTimeout: 10 * time.Second}
			ctx, stop := interruptible("stopping the server")
			defer stop()
			go func() {
				<-ctx.Done()
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(sctx)
			}()
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return harnessErr(err)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&port, "port", 8080, "port on 127.0.0.1 (0 picks a free one)")
	return cmd
}
