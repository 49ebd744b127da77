package followtest

import (
	"testing"
	"time"
)

func TestStamp(t *testing.T) {
	est := time.FixedZone("EST", -5*3600)
	for _, tc := range []struct {
		name, line string
		loc        *time.Location
		want       time.Time
		wantErr    bool
	}{
		{name: "UTC", line: "[1] 2026/12/02 06:41:07.252018 [INF] Reloaded server configuration", loc: time.UTC,
			want: time.Date(2026, 12, 2, 6, 41, 7, 252018000, time.UTC)},
		{name: "the server's zone", line: "[12810] 2026/12/02 01:41:07.000001 [WRN] x", loc: est,
			want: time.Date(2026, 12, 2, 6, 41, 7, 1000, time.UTC)},
		{name: "no pid", line: "2026/12/02 06:41:07.252018 [INF] x", loc: time.UTC, wantErr: true},
		{name: "milliseconds only", line: "[1] 2026/12/02 06:41:07.252 [INF] x", loc: time.UTC, wantErr: true},
		{name: "a runtime's note", line: "--- jetstream-chaos 2026-12-02T06:41:07Z: n1: start", loc: time.UTC, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Stamp(tc.line, tc.loc)
			if (err != nil) != tc.wantErr || !got.Equal(tc.want) {
				t.Errorf("Stamp = %v, %v; want %v (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
