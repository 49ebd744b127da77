package nemesis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// memberAPI is the JetStream cluster API member-replace calls.
type memberAPI interface {
	// removeStreamPeer asks the meta leader to move stream's replica off
	// peer ($JS.API.STREAM.PEER.REMOVE.<stream>, account API).
	removeStreamPeer(ctx context.Context, stream, peer string) error
	// removeServer asks the meta leader to remove server from the cluster
	// ($JS.API.SERVER.REMOVE, system account only).
	removeServer(ctx context.Context, server string) error
	close()
}

// serverRemoveSubject is JSApiRemoveServer; the system account's API has
// no domain prefix.
const serverRemoveSubject = "$JS.API.SERVER.REMOVE"

// apiTimeout bounds one cluster API request. A server removal is answered
// once the meta group has committed it.
const apiTimeout = 5 * time.Second

// memberAPI connects to the cluster as the system account's user (see
// cluster.SystemUser) for the server removal; stream peer removal goes
// through the pipeline's JetStream client (Env.JS).
func (e *Env) memberAPI(ctx context.Context) (memberAPI, error) {
	if e.memberOps != nil {
		return e.memberOps, nil
	}
	if e.JS == nil {
		return nil, errors.New("no JetStream client in the nemesis environment")
	}
	var urls []string
	for _, n := range e.nodes() {
		urls = append(urls, n.ClientURL)
	}
	sys, err := nats.Connect(strings.Join(urls, ","), nats.UserInfo(cluster.SystemUser, cluster.SystemPassword),
		nats.Name("jetstream-chaos nemesis"), nats.Timeout(e.probeTimeout()), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connect as the system account's user %s: %w", cluster.SystemUser, err)
	}
	return &natsMembers{js: e.JS, sys: sys}, nil
}

type natsMembers struct {
	js  jetstream.JetStream
	sys *nats.Conn
}

func (m *natsMembers) close() { m.sys.Close() }

func (m *natsMembers) removeStreamPeer(ctx context.Context, stream, peer string) error {
	subj := apiPrefix(m.js) + "STREAM.PEER.REMOVE." + stream
	return request(ctx, m.js.Conn(), subj, map[string]string{"peer": peer})
}

// removeServer names the server in the request's "peer" field, which is
// the server name (JSApiMetaServerRemoveRequest; "peer_id" is the ID).
func (m *natsMembers) removeServer(ctx context.Context, server string) error {
	return request(ctx, m.sys, serverRemoveSubject, map[string]string{"peer": server})
}

func request(ctx context.Context, nc *nats.Conn, subj string, body any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	msg, err := nc.RequestWithContext(ctx, subj, data)
	if err != nil {
		return fmt.Errorf("%s: %w", subj, err)
	}
	if apiErr := apiError(msg.Data); apiErr != "" {
		return fmt.Errorf("%s: %s", subj, apiErr)
	}
	return nil
}
