package reports

import (
	"bytes"
	"encoding/json"

	"github.com/jetstream-chaos/jetstream-chaos/run"
)

// Stored runs outlive the code that wrote them, and a report must render
// any of them. These decoders accept every shape results.json and run.json
// have had:
//
//   - spec.kv was one object before workload flags took lists; it is a list
//     now.
//   - spec.workload was empty before there was a second workload: such a
//     run is a kv-update run, and renders with its view.

// decodeResult reads results.json.
func decodeResult(b []byte, res *run.Result) error {
	if err := json.Unmarshal(b, res); err == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if spec, ok := m["spec"]; ok {
		m["spec"] = fixSpec(spec)
	}
	fixed, err := json.Marshal(m)
	if err != nil {
		return err
	}
	*res = run.Result{}
	return json.Unmarshal(fixed, res)
}

// decodeSpec reads run.json.
func decodeSpec(b []byte, spec *run.Spec) error {
	if err := json.Unmarshal(b, spec); err == nil {
		return nil
	}
	*spec = run.Spec{}
	return json.Unmarshal(fixSpec(b), spec)
}

// fixSpec wraps a single kv object into a list.
func fixSpec(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if kv, ok := m["kv"]; ok && bytes.HasPrefix(bytes.TrimSpace(kv), []byte("{")) {
		m["kv"] = append(append(json.RawMessage("["), kv...), ']')
	}
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// storedWorkload is the workload a stored run names (see above).
func storedWorkload(w string) string {
	if w == "" {
		return "kv-update"
	}
	return w
}
