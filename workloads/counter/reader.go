package counter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// errNoValue is a counter with no message yet: its value is 0.
var errNoValue = errors.New("the counter has no message")

// readDirect reads counter's value through Direct Get: any replica of the
// stream may answer ($JS.API.DIRECT.GET.<stream>.<subject>).
func readDirect(ctx context.Context, nc *nats.Conn, stream, counter string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	m, err := nc.RequestWithContext(ctx, "$JS.API.DIRECT.GET."+stream+"."+counter, nil)
	if err != nil {
		return 0, err
	}
	if st := m.Header.Get("Status"); st == "404" {
		return 0, errNoValue
	} else if st != "" {
		return 0, fmt.Errorf("direct get: status %s %s", st, m.Header.Get("Description"))
	}
	return counterValue(m.Data)
}

// readLeader reads counter's value from the stream's leader
// ($JS.API.STREAM.MSG.GET.<stream>, last_by_subj), whatever the stream's
// Direct Get setting: nats.go's Stream.GetLastMsgForSubject would go
// through Direct Get on a stream that allows it.
func readLeader(ctx context.Context, nc *nats.Conn, stream, counter string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := json.Marshal(map[string]string{"last_by_subj": counter})
	m, err := nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET."+stream, req)
	if err != nil {
		return 0, err
	}
	var resp struct {
		Message *struct {
			Data string `json:"data"`
		} `json:"message"`
		Error *struct {
			Code    int    `json:"code"`
			ErrCode int    `json:"err_code"`
			Desc    string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(m.Data, &resp); err != nil {
		return 0, fmt.Errorf("stream msg get: %w", err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrCode == 10037: // JSNoMessageFoundErr
		return 0, errNoValue
	case resp.Error != nil:
		return 0, fmt.Errorf("stream msg get: %d %d %s", resp.Error.Code, resp.Error.ErrCode, resp.Error.Desc)
	case resp.Message == nil:
		return 0, fmt.Errorf("stream msg get: no message in %q", m.Data)
	}
	data, err := base64.StdEncoding.DecodeString(resp.Message.Data)
	if err != nil {
		return 0, fmt.Errorf("stream msg get: %w", err)
	}
	return counterValue(data)
}
