package queue

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The queue workload's op types in history.jsonl. Each reuses history.Op's
// fields as the package doc's table says.
const (
	OpPublish      history.OpType = "publish"       // js.Publish with Nats-Msg-Id
	OpFetch        history.OpType = "fetch"         // one Consumer.Fetch
	OpDeliver      history.OpType = "deliver"       // one message received
	OpAck          history.OpType = "ack"           // msg.Ack (fire-and-forget)
	OpAckSync      history.OpType = "ack-sync"      // msg.DoubleAck (AckSync)
	OpNak          history.OpType = "nak"           // msg.Nak
	OpConsumerInfo history.OpType = "consumer-info" // a sample of a consumer's pending counts
	OpStreamInfo   history.OpType = "stream-info"   // the stream's state when it was read back
	OpRun          history.OpType = "run"           // the run's workers were active from invoke to complete
	OpDrain        history.OpType = "drain"         // the final drain of one consumer
)

// ErrDuplicate marks an acknowledged publish whose PubAck said Duplicate:
// the server had already stored that Nats-Msg-Id (Outcome stays ok, as
// kv-update's not_found get does).
const ErrDuplicate history.ErrKind = "duplicate"

// Client ids of the workload's actors, so each op says who did it.
const (
	producerClient = 0    // + producer index
	workerClient   = 1000 // + global worker index
	orderedClient  = 2000 // + ordered subscription index
	samplerClient  = 3000 // + consumer index
	drainClient    = 4000 // + consumer index
	readbackClient = 5000
)

// Files a cell writes besides history.jsonl.
const (
	SettingsFile = "queue.json" // Options and consumer names: what the checkers need
	StreamFile   = "stream.jsonl"
	SeriesFile   = "queue.csv"
)

// cellFile is queue.json: the cell's settings as the checkers read them
// (Check gets only the cell's folder).
type cellFile struct {
	Options   Options  `json:"options"`
	Stream    string   `json:"stream"`
	Consumers []string `json:"consumers"`
	Producers []string `json:"producers"`
}

func writeCellFile(dir string, o Options) error {
	cf := cellFile{Options: o, Stream: o.stream(), Consumers: o.ConsumerNames()}
	for i := range o.Producers {
		cf.Producers = append(cf.Producers, ProducerID(i))
	}
	b, err := json.MarshalIndent(cf, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SettingsFile), append(b, '\n'), 0o644)
}

func readCellFile(dir string) (cellFile, error) {
	var cf cellFile
	b, err := os.ReadFile(filepath.Join(dir, SettingsFile))
	if err != nil {
		return cf, err
	}
	if err := json.Unmarshal(b, &cf); err != nil {
		return cf, fmt.Errorf("%s: %w", filepath.Join(dir, SettingsFile), err)
	}
	return cf, nil
}

// Value is producer's n-th value; it is also the message's Nats-Msg-Id.
func Value(producer string, n int) string { return producer + "-" + strconv.Itoa(n) }

// parseValue splits "p3-17" into its producer and ordinal; ok is false for
// anything this workload did not write.
func parseValue(v string) (producer string, n int, ok bool) {
	i := strings.LastIndexByte(v, '-')
	if i <= 1 || v[0] != 'p' {
		return "", 0, false
	}
	n, err := strconv.Atoi(v[i+1:])
	if err != nil || n < 1 {
		return "", 0, false
	}
	if _, err := strconv.Atoi(v[1:i]); err != nil {
		return "", 0, false
	}
	return v[:i], n, true
}

func isQueueOp(t history.OpType) bool {
	switch t {
	case OpPublish, OpFetch, OpDeliver, OpAck, OpAckSync, OpNak, OpConsumerInfo, OpStreamInfo, OpRun, OpDrain:
		return true
	}
	return false
}
