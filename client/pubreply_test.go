package client

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The names catchup.json's read errors have always been counted under; a
// disconnection is counted apart from a timeout.
func TestErrorName(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{context.DeadlineExceeded, "timeout"},
		{fmt.Errorf("get: %w", nats.ErrTimeout), "timeout"},
		{nats.ErrNoResponders, "no_responders"},
		{jetstream.ErrNoStreamResponse, "no_responders"},
		{&jetstream.APIError{ErrorCode: 10008, Code: 503}, "api_10008"},
		{jetstream.ErrStreamNotFound, "api_10059"},
		{nats.ErrConnectionClosed, "disconnected"},
		{nats.ErrConnectionReconnecting, "disconnected"},
		{nats.ErrDisconnected, "disconnected"},
		{context.Canceled, "other"},
		{errors.New("boom"), "other"},
	}
	for _, c := range cases {
		if got := Classify(c.err).Name(); got != c.want {
			t.Errorf("Classify(%v).Name() = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestPubAckOf(t *testing.T) {
	noResp := &nats.Msg{Header: nats.Header{"Status": []string{"503"}}}
	cases := []struct {
		msg  *nats.Msg
		seq  uint64
		name string
	}{
		{&nats.Msg{Data: []byte(`{"stream":"S","seq":42}`)}, 42, ""},
		{noResp, 0, ErrNameNoResponders},
		{&nats.Msg{Data: []byte(`not json`)}, 0, ErrNameBadAck},
		{&nats.Msg{Data: []byte(`{"stream":"S"}`)}, 0, ErrNameBadAck},
		{&nats.Msg{Data: []byte(`{"error":{"code":503,"err_code":10008,"description":"unavailable"}}`)}, 0, "api_10008"},
	}
	for _, c := range cases {
		if seq, name := PubAckOf(c.msg); seq != c.seq || name != c.name {
			t.Errorf("PubAckOf(%q) = %d, %q; want %d, %q", c.msg.Data, seq, name, c.seq, c.name)
		}
	}
}

func TestSendErrName(t *testing.T) {
	for err, want := range map[error]string{
		nats.ErrConnectionClosed:                            "closed",
		fmt.Errorf("pub: %w", nats.ErrReconnectBufExceeded): "reconnect_buffer_full",
		nats.ErrConnectionReconnecting:                      "reconnecting",
		nats.ErrBadSubject:                                  "other",
	} {
		if got := SendErrName(err); got != want {
			t.Errorf("SendErrName(%v) = %q, want %q", err, got, want)
		}
	}
}
