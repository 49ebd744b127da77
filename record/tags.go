package record

import (
	"encoding/json"
	"sync"
)

// Cells are named by the fields of their settings that differ between
// them ("keys-10"). Only a workload can read its settings, and this package
// imports none: a workload registers how to read the tags of its stored
// settings (package workloads does it for every workload it registers), so
// that any reader of a stored run names its cells as the run did.

// Tag is one field of a cell's settings: "keys", "10".
type Tag struct{ Name, Value string }

// TagsFunc reads one cell's stored settings and gives their tags, the
// fields that may tell cells apart, in a stable order.
type TagsFunc func(settings json.RawMessage) ([]Tag, error)

var (
	tagsMu sync.RWMutex
	tagsOf = map[string]TagsFunc{}
)

// RegisterTags makes f read the settings of the workload's stored runs; a
// second registration for one workload replaces the first.
func RegisterTags(workload string, f TagsFunc) {
	tagsMu.Lock()
	defer tagsMu.Unlock()
	tagsOf[workload] = f
}

// settingTags is the tags of each of the spec's settings; false when its
// workload registered none or a setting does not decode.
func (s Spec) settingTags() ([][]Tag, bool) {
	tagsMu.RLock()
	f := tagsOf[s.Workload]
	tagsMu.RUnlock()
	if f == nil {
		return nil, false
	}
	all := make([][]Tag, len(s.Settings))
	for i, raw := range s.Settings {
		tags, err := f(raw)
		if err != nil {
			return nil, false
		}
		all[i] = tags
	}
	return all, true
}

// varyingTags names each setting by the tags whose values differ between
// them, e.g. "keys-10+clients-20".
func varyingTags(all [][]Tag) []string {
	tags := make([]string, len(all))
	if len(all) < 2 {
		return tags
	}
	for f, first := range all[0] {
		varies := false
		for _, t := range all[1:] {
			varies = varies || f >= len(t) || t[f].Value != first.Value
		}
		if !varies {
			continue
		}
		for i, t := range all {
			if f >= len(t) {
				continue
			}
			if tags[i] != "" {
				tags[i] += "+"
			}
			tags[i] += t[f].Name + "-" + t[f].Value
		}
	}
	return tags
}
