package record

import (
	"bytes"
	"encoding/json"
)

// Stored runs outlive the code that wrote them, and every reader must
// take any of them. These decoders accept every shape results.json and run.json
// have had:
//
//   - spec.kv was one object before workload flags took lists, then a list;
//     spec.catchup one object. Both are spec.settings now (one entry per
//     setting).
//   - each cell's kv-update options were cells[].workload (an object); they
//     are cells[].settings now.
//   - spec.workload was empty before there was a second workload: such a
//     run is a kv-update run, and renders with its view.

// DecodeResult reads a run's results.json, in any shape it has had.
func DecodeResult(b []byte) (Result, error) {
	var res Result
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return res, err
	}
	if spec, ok := m["spec"]; ok {
		m["spec"] = fixSpec(spec)
	}
	if cells, ok := m["cells"]; ok {
		m["cells"] = fixCells(cells)
	}
	fixed, err := json.Marshal(m)
	if err != nil {
		return res, err
	}
	err = json.Unmarshal(fixed, &res)
	return res, err
}

// DecodeSpec reads run.json, in any shape it has had.
func DecodeSpec(b []byte) (Spec, error) {
	var spec Spec
	err := json.Unmarshal(fixSpec(b), &spec)
	return spec, err
}

// DecodeCell reads a cell's results.json, in any shape it has had.
func DecodeCell(b []byte) (CellResult, error) {
	var c CellResult
	err := json.Unmarshal(fixCell(b), &c)
	return c, err
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

// StoredWorkload is the workload a stored run was, by its spec's name: an
// empty name, from before there was a second workload, is kv-update.
func StoredWorkload(w string) string {
	if w == "" {
		return "kv-update"
	}
	return w
}
