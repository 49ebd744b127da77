package sources

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/client/streamread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// infoTimeout bounds one stream info or get of a sample.
const infoTimeout = 2 * time.Second

// copyState reads every origin's head and every copy's progress, records
// it as a copy-state op and returns it. A stream that does not answer is
// named in its Head or Link, and the sample still records the rest.
func (i *instance) copyState(ctx context.Context, final bool) CopyState {
	h := i.env.History
	op := history.Op{Type: OpCopy, Client: samplerClient, Node: i.admin.ConnectedServerName(), Invoke: h.Now()}
	s := CopyState{Final: final}
	for _, name := range i.o.OriginNames() {
		hd := Head{Name: name}
		if info, err := client.StreamInfo(ctx, i.js, name, infoTimeout); err != nil {
			hd.Error = client.ErrMsg(err)
		} else {
			hd.LastSeq, hd.Msgs = info.State.LastSeq, info.State.Msgs
		}
		s.Origins = append(s.Origins, hd)
	}
	if m := i.o.Mirror(); m != "" {
		l := Link{From: i.o.Origin(1), To: m}
		if info, err := client.StreamInfo(ctx, i.js, m, infoTimeout); err != nil {
			l.Error = client.ErrMsg(err)
		} else {
			l.Copied, l.Leader, l.Msgs = info.State.LastSeq, leaderOf(info), info.State.Msgs
			if info.Mirror != nil {
				l.Lag, l.ActiveMs = info.Mirror.Lag, activeMs(info.Mirror.Active)
				l.SourceError = apiErr(info.Mirror.Error)
			}
		}
		l.At = h.Now()
		s.Links = append(s.Links, l)
	}
	s.Links = append(s.Links, i.sourcedLinks(ctx)...)
	op.Complete, op.Outcome = max(op.Invoke, h.Now()), history.OK
	h.Add(withData(op, s))
	return s
}

// sourcedLinks is the sourced stream's progress per origin: the lag its
// leader reports, and the newest origin sequence among the last messages
// of the origin's producers' subjects (their Nats-Stream-Source).
func (i *instance) sourcedLinks(ctx context.Context) []Link {
	name := i.o.Sourced()
	links := make([]Link, i.o.Origins)
	for n := range links {
		links[n] = Link{From: i.o.Origin(n + 1), To: name}
	}
	defer func() {
		at := i.env.History.Now()
		for n := range links {
			links[n].At = at
		}
	}()
	info, err := client.StreamInfo(ctx, i.js, name, infoTimeout)
	if err != nil {
		for n := range links {
			links[n].Error = client.ErrMsg(err)
		}
		return links
	}
	for n := range links {
		links[n].Leader, links[n].Msgs = leaderOf(info), info.State.Msgs
		for _, si := range info.Sources {
			if si != nil && si.Name == links[n].From {
				links[n].Lag, links[n].SourceError, links[n].ActiveMs = si.Lag, apiErr(si.Error), activeMs(si.Active)
			}
		}
	}
	st, err := i.js.Stream(ctx, name)
	if err != nil {
		for n := range links {
			links[n].Error = client.ErrMsg(err)
		}
		return links
	}
	for k := range i.o.Producers * i.o.Origins {
		cctx, cancel := context.WithTimeout(ctx, infoTimeout)
		m, err := st.GetLastMsgForSubject(cctx, i.o.SourcedSubject(i.o.ProducerSubject(k)))
		cancel()
		l := &links[i.o.OriginOf(k)-1]
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
		case err != nil: // a subject unread: Copied may be short of the truth
			l.Error = "last message of " + i.o.ProducerSubject(k) + ": " + client.ErrMsg(err)
		default:
			if _, seq := streamread.SourceOf(m.Header.Get(streamread.SourceHeader)); seq > l.Copied {
				l.Copied = seq
			}
		}
	}
	return links
}

// activeMs is a source's Active in ms; nats.go reads the server's -1
// ("never") as -1ns.
func activeMs(d time.Duration) *int64 {
	ms := d.Milliseconds()
	if d < 0 {
		ms = -1
	}
	return &ms
}

func leaderOf(info *jetstream.StreamInfo) string {
	if info.Cluster == nil {
		return ""
	}
	return info.Cluster.Leader
}

func apiErr(e *jetstream.APIError) string {
	if e == nil {
		return ""
	}
	return e.Error()
}
