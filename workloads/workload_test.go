package workloads

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// sized is a workload whose settings are one size.
type sized struct{}

type sizedSettings struct {
	Size int `json:"size"`
}

func (sized) Name() string                                            { return "sized-test" }
func (sized) Doc() string                                             { return "a test workload" }
func (sized) Flags(*pflag.FlagSet) Expander                           { return nil }
func (sized) Check(string, checker.Options) ([]checker.Result, error) { return nil, nil }
func (sized) Decode(raw json.RawMessage) (Settings, error) {
	var s sizedSettings
	err := json.Unmarshal(raw, &s)
	return s, err
}

func (s sizedSettings) Tags() []record.Tag {
	return []record.Tag{{Name: "size", Value: strings.Repeat("x", s.Size)}}
}
func (sizedSettings) Validate(int) error                            { return nil }
func (sizedSettings) Plan(base cluster.Config) Plan                 { return Plan{Cluster: base, Timed: true} }
func (s sizedSettings) Named(string) Settings                       { return s }
func (sizedSettings) Setup(context.Context, *Env) (Instance, error) { return nil, nil }

// TestRegisterNamesStoredCells: a registered workload's stored runs name
// their cells by its settings' tags (record reads them through the
// workload's Decode), as the run named them.
func TestRegisterNamesStoredCells(t *testing.T) {
	Register(sized{})
	spec := record.Spec{Workload: "sized-test", DirectGet: []bool{true}, ServerVersions: []string{"v2.15.3"}, Nemeses: []string{"none"},
		Settings: []json.RawMessage{json.RawMessage(`{"size":1}`), json.RawMessage(`{"size":2}`)}}
	var names []string
	for _, c := range spec.Cells() {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, " "); got != "size-x_direct-get-on size-xx_direct-get-on" {
		t.Errorf("cells %q, want them named by size", got)
	}
}
