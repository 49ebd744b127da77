// Package observe watches every node of a running cluster for the whole
// of a cell, whatever the workload: its memory (what the limit counts, and
// the server's resident memory), what the runtime knows of its process
// (OOM kills, restarts nobody asked for, exits), its full /healthz, and
// its own copy of the workload's stream (/jsz). The pipeline (package run)
// starts an Observer before the workload is set up and stops it before
// the cluster is torn down; the samples go to one file in the cell's
// folder, nodes.jsonl (File), written as they are taken.
//
// Each kind of reading of each node is taken on its own goroutine, so one
// slow or dead node never delays another's readings:
//
//	kind    what                                   how                                    every
//	usage   memory as the limit sees it            Cluster.Memory (docker: the cgroup's   Every (default 250 ms)
//	                                               usage, page cache included)
//	rss     the server's resident memory           /varz mem                              Every
//	state   the runtime's view of the process      Cluster.State (OOM kills, restarts)    Every, at least 250 ms
//	health  the full health check                  /healthz                               Every, at least 250 ms
//	stream  the node's copy of the stream          /jsz (its state, the leader it sees,   Every, at least 250 ms
//	                                               each replica's lag as the leader knows)
//	limit   the node's hard memory limit           the cluster's config, then Limit       when it changes
//
// The cgroup figure is what an OOM kill compares with the limit, but it
// counts page cache, which a node writing a large stream fills: on an
// unlimited node it grows with the stream and says nothing about the
// server. RSS is the server's own memory and the figure to compare across
// versions; both are kept.
//
// Times are nanoseconds on the history's clock (history.Recorder.Now), as
// the history's ops and the fault windows are, so a reading lines up with
// the faults without conversion.
//
// Check (node-health) judges a stored cell from its nodes.jsonl: an OOM
// kill is an anomaly, and so is a restart by the runtime or a death that no
// fault aimed at the node explains.
package observe
