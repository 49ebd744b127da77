package reports

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The scanner must read every line exactly as encoding/json does.
func TestDecodeOpMatchesJSON(t *testing.T) {
	lines := []string{
		`{"client":3,"node":"n1","type":"get","key":"k3","outcome":"ok","err":"not_found","invoke":9954109,"complete":10326335}`,
		`{"client":-1,"type":"fault","outcome":"info","invoke":1,"complete":2,"fault":"kill","targets":["n1","n2"],"verified":true,"detail":"a \"quoted\" } detail"}`,
		`{ "complete" : 5 , "invoke" : 4 , "type" : "update" , "outcome" : "fail" , "err" : "wrong_last_seq" , "err_seq" : 12, "err_msg": "x\\y" }`,
		`{"type":"get","extra":{"nested":[1,{"a":"]"}]},"outcome":"ok","invoke":1,"complete":2}`,
		`{"type":"g\u0065t","outcome":"ok","invoke":1,"complete":2}`, // escaped: json's path
		`{"type":"get","invoke":1.5e3,"complete":2}`,                 // not an integer: json's path
		`{"type":"get","outcome":"ok","invoke":1,"complete":2,"rev":18446744073709551615}`,
		`{}`,
		`{"type":"get",}`,
		`{"type":"get"} trailing`,
		`[1,2]`,
		`{"client":3,"type":null,"invoke":1,"complete":2}`,
	}
	p := filepath.Join(unpackRun(t), "direct-get-on", "history.jsonl")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	for _, l := range lines {
		var want, got slimOp
		werr := json.Unmarshal([]byte(l), &want)
		gerr := decodeOp([]byte(l), &got)
		if (werr == nil) != (gerr == nil) || (werr == nil && want != got) {
			t.Errorf("%s:\n json %+v (%v)\n scan %+v (%v)", l, want, werr, got, gerr)
		}
	}
	if len(lines) < 1000 {
		t.Errorf("only %d lines checked", len(lines))
	}
}
