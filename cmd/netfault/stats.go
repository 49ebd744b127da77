package main

import (
	"encoding/json"
	"io"

	"github.com/google/nftables"
)

// stats is what "netfault stats" prints: the JSON of cluster.NetStats,
// which the docker runtime decodes (the helper does not import it, to stay
// small).
type stats struct {
	LossPercent float64 `json:"loss_percent"`
	LossSeen    uint64  `json:"loss_seen"`
	LossDropped uint64  `json:"loss_dropped"`

	Rate           uint64 `json:"rate"`
	RateBytes      uint64 `json:"rate_bytes"`
	RatePackets    uint64 `json:"rate_packets"`
	RateDrops      uint64 `json:"rate_drops"`
	RateOverlimits uint64 `json:"rate_overlimits"`
}

func printStats(conn *nftables.Conn, out io.Writer) error {
	l, err := readLoss(conn)
	if err != nil {
		return err
	}
	r, err := readRate()
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(stats{
		LossPercent: float64(l.basis) / 100, LossSeen: l.seen, LossDropped: l.dropped,
		Rate: r.rate, RateBytes: r.bytes, RatePackets: r.packets, RateDrops: r.drops, RateOverlimits: r.overlimits,
	})
}
