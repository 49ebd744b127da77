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
//   - spec.kv was one object before workload flags took lists, then a list;
//     spec.catchup one object. Both are spec.settings now (one entry per
//     setting).
//   - each cell's kv-update options were cells[].workload (an object); they
//     are cells[].settings now.

// decodeResult reads results.json.
func decodeResult(b []byte, res *run.Result) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if spec, ok := m["spec"]; ok {
		m["spec"] = fixSpec(spec)
	}
	if cells, ok := m["cells"]; ok {
		m["cells"] = fixCells(cells)
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
	*spec = run.Spec{}
	return json.Unmarshal(fixSpec(b), spec)
}

// decodeCell reads a cell's results.json.
func decodeCell(b []byte, c *run.CellResult) error {
	*c = run.CellResult{}
	return json.Unmarshal(fixCell(b), c)
}

// fixSpec moves spec.kv and spec.catchup into spec.settings.
func fixSpec(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if _, ok := m["settings"]; !ok {
		var list []json.RawMessage
		if kv, ok := m["kv"]; ok {
			if bytes.HasPrefix(bytes.TrimSpace(kv), []byte("{")) {
				list = []json.RawMessage{kv}
			} else {
				_ = json.Unmarshal(kv, &list)
			}
		}
		if cu, ok := m["catchup"]; ok && bytes.HasPrefix(bytes.TrimSpace(cu), []byte("{")) {
			list = []json.RawMessage{cu}
		}
		if list != nil {
			b, _ := json.Marshal(list)
			m["settings"] = b
		}
	}
	delete(m, "kv")
	delete(m, "catchup")
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

func fixCells(raw json.RawMessage) json.RawMessage {
	var cells []json.RawMessage
	if json.Unmarshal(raw, &cells) != nil {
		return raw
	}
	for i := range cells {
		cells[i] = fixCell(cells[i])
	}
	out, err := json.Marshal(cells)
	if err != nil {
		return raw
	}
	return out
}

// fixCell moves cells[].workload (an object) to cells[].settings.
func fixCell(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if w, ok := m["workload"]; ok && bytes.HasPrefix(bytes.TrimSpace(w), []byte("{")) {
		if _, has := m["settings"]; !has {
			m["settings"] = w
		}
		delete(m, "workload")
	}
	delete(m, "kv")
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}
