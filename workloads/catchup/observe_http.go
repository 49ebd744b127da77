package catchup

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// The observer samples, each on its own goroutine so that one slow or dead
// node never delays another's readings:
//
//	what                         how                                   every
//	memory as the limit sees it  Cluster.Memory (docker: the cgroup's   SampleInterval (<= 250 ms)
//	                             usage, page cache included)
//	resident memory              /varz mem (the process's RSS)          SampleInterval
//	runtime state                Cluster.State (OOM kills, restarts)    250 ms
//	health                       /healthz, full                         1 s
//	the target's lag             target /jsz + leader stream info       500 ms
//
// The cgroup figure is what an OOM kill compares with the limit, but it
// counts page cache, which a node writing a 6 GB stream fills: on an
// unlimited node it grows with the stream and says nothing about the
// server. RSS is the server's own memory and the figure to compare across
// versions; both are kept.

// jszStream is one server's own copy of a stream in /jsz?streams=true.
type jszStream struct {
	Name  string `json:"name"`
	State struct {
		Msgs     uint64 `json:"messages"`
		Bytes    uint64 `json:"bytes"`
		FirstSeq uint64 `json:"first_seq"`
		LastSeq  uint64 `json:"last_seq"`
	} `json:"state"`
	Cluster *struct {
		Leader string `json:"leader"`
	} `json:"cluster"`
}

// localStream reads node n's own copy of the stream; ok is false when the
// node does not have one (yet).
func (o *observer) localStream(ctx context.Context, n cluster.Node) (s jszStream, ok bool, err error) {
	var j struct {
		Accounts []struct {
			Streams []jszStream `json:"stream_detail"`
		} `json:"account_details"`
	}
	if _, err := o.getJSON(ctx, n, "/jsz?streams=true", &j); err != nil {
		return s, false, err
	}
	for _, a := range j.Accounts {
		for _, st := range a.Streams {
			if st.Name == o.stream {
				return st, true, nil
			}
		}
	}
	return s, false, nil
}

func (o *observer) get(ctx context.Context, n cluster.Node, path string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.MonitorURL+path, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := o.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, body, err
}

func (o *observer) getJSON(ctx context.Context, n cluster.Node, path string, v any) (int, error) {
	code, body, err := o.get(ctx, n, path)
	if err != nil {
		return code, err
	}
	if code != http.StatusOK {
		return code, fmt.Errorf("%s %s: %d %s", n.Name, path, code, oneLine(string(body), 160))
	}
	return code, json.Unmarshal(body, v)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
