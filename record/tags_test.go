package record

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// tagsOfTest reads {"keys":N,"clients":M} as a workload's Tags would.
func tagsOfTest(raw json.RawMessage) ([]Tag, error) {
	var o struct{ Keys, Clients int }
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, err
	}
	return []Tag{{"keys", fmt.Sprint(o.Keys)}, {"clients", fmt.Sprint(o.Clients)}}, nil
}

// TestCellsNamedByRegisteredTags: cells are named by the tags that differ
// between settings, as the workload registered them; a workload that
// registered none, or a setting that does not decode, gives untagged names.
func TestCellsNamedByRegisteredTags(t *testing.T) {
	RegisterTags("tagged", tagsOfTest)
	settings := func(raws ...string) []json.RawMessage {
		var out []json.RawMessage
		for _, r := range raws {
			out = append(out, json.RawMessage(r))
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		workload string
		settings []json.RawMessage
		want     string
	}{
		{"keys differ", "tagged", settings(`{"keys":10,"clients":4}`, `{"keys":20,"clients":4}`),
			"keys-10_direct-get-off keys-20_direct-get-off"},
		{"both differ", "tagged", settings(`{"keys":10,"clients":4}`, `{"keys":20,"clients":8}`),
			"keys-10+clients-4_direct-get-off keys-20+clients-8_direct-get-off"},
		{"one setting", "tagged", settings(`{"keys":10,"clients":4}`), "direct-get-off"},
		{"no tags registered", "untagged", settings(`{"keys":10}`, `{"keys":20}`), "direct-get-off direct-get-off"},
		{"a setting that does not decode", "tagged", settings(`{"keys":10}`, `{"keys":"x"}`), "direct-get-off direct-get-off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Spec{Workload: tc.workload, DirectGet: []bool{false}, ServerVersions: []string{"v2.15.3"}, Nemeses: []string{"none"},
				Settings: tc.settings}
			var names []string
			for _, c := range s.Cells() {
				names = append(names, c.Name)
			}
			if got := strings.Join(names, " "); got != tc.want {
				t.Errorf("cells %q, want %q", got, tc.want)
			}
		})
	}
}
