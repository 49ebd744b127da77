package cluster

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMetaPeersOnline: a cluster is ready only once the meta leader lists
// every other node as a current, online peer.
func TestMetaPeersOnline(t *testing.T) {
	nodes := []Node{{Name: "n1"}, {Name: "n2"}, {Name: "n3"}}
	cases := []struct {
		name, jsz, want string
	}{
		{"all online", `{"meta_cluster":{"leader":"n1","replicas":[
			{"name":"n2","current":true},{"name":"n3","current":true}]}}`, ""},
		{"one offline", `{"meta_cluster":{"leader":"n1","replicas":[
			{"name":"n2","current":true},{"name":"n3","current":true,"offline":true}]}}`, "n3 offline"},
		{"one not current", `{"meta_cluster":{"leader":"n1","replicas":[
			{"name":"n2","current":false},{"name":"n3","current":true}]}}`, "n2 not current"},
		{"one not listed yet", `{"meta_cluster":{"leader":"n1","replicas":[
			{"name":"n2","current":true}]}}`, "does not list n3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var j Jsz
			if err := json.Unmarshal([]byte(c.jsz), &j); err != nil {
				t.Fatal(err)
			}
			err := metaPeersOnline(j, "n1", nodes)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("not ready: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}
