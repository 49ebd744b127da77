package client

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/nats-io/nats.go"
)

// Names of a failed JetStream publish whose ack a client reads itself (a
// core request with its own reply subject), beside "api_<code>" (Name).
const (
	ErrNameTimeout      = "timeout"       // no ack in time: it may be stored
	ErrNameNoResponders = "no_responders" // 503: no stream leader took it; not stored
	ErrNameBadAck       = "bad_ack"       // an answer that is no publish ack: it may be stored
)

// Name is the error's name in a workload's counts: its cause, a refusal by
// its code ("api_10008").
func (e Error) Name() string {
	if e.Cause == Refused {
		return "api_" + strconv.Itoa(e.Code)
	}
	return e.Cause.String()
}

// PubAckOf reads the answer to a JetStream publish sent as a core request:
// the stream sequence that stored it, or why not (ErrNameNoResponders,
// ErrNameBadAck, "api_<code>").
func PubAckOf(m *nats.Msg) (seq uint64, errName string) {
	var ack struct {
		Seq   uint64 `json:"seq"`
		Error *struct {
			ErrCode int `json:"err_code"`
		} `json:"error"`
	}
	switch {
	case len(m.Data) == 0 && m.Header.Get("Status") == "503":
		return 0, ErrNameNoResponders
	case json.Unmarshal(m.Data, &ack) != nil:
		return 0, ErrNameBadAck
	case ack.Error != nil:
		return 0, "api_" + strconv.Itoa(ack.Error.ErrCode)
	case ack.Seq == 0:
		return 0, ErrNameBadAck
	}
	return ack.Seq, ""
}

// SendErrName names why a core NATS publish was not sent at all:
// "closed", "reconnect_buffer_full", "reconnecting" or "other".
func SendErrName(err error) string {
	switch {
	case errors.Is(err, nats.ErrConnectionClosed):
		return "closed"
	case errors.Is(err, nats.ErrReconnectBufExceeded):
		return "reconnect_buffer_full"
	case errors.Is(err, nats.ErrConnectionReconnecting):
		return "reconnecting"
	}
	return "other"
}
