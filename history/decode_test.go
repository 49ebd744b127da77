package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// agree reports how decodeOp differs from encoding/json on one line, or
// "": the same op, or the same error.
func agree(line []byte) string {
	var std Op
	serr := json.Unmarshal(line, &std)
	got, gerr := decodeOp(line, newInterner())
	switch {
	case (gerr == nil) != (serr == nil):
		return fmt.Sprintf("decodeOp says %v, encoding/json %v", gerr, serr)
	case gerr != nil && gerr.Error() != serr.Error():
		return fmt.Sprintf("decodeOp's error %q is not encoding/json's %q", gerr, serr)
	case gerr == nil && !reflect.DeepEqual(got, std):
		return fmt.Sprintf("decodeOp gives %+v, encoding/json %+v", got, std)
	}
	var e, stdE Entry
	eerr, serr := decodeLine(line, &e), json.Unmarshal(line, &stdE)
	if fmt.Sprint(eerr) != fmt.Sprint(serr) || e != stdE {
		return fmt.Sprintf("as a stream entry: %+v %v, encoding/json %+v %v", e, eerr, stdE, serr)
	}
	return ""
}

// TestDecodeAgrees runs every history line the repository stores as test
// data (real runs, malformed fixtures) through both decoders.
func TestDecodeAgrees(t *testing.T) {
	var files []string
	filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "testdata") && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	lines := 0
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for n := 1; sc.Scan() && n <= 2000; n++ {
			lines++
			if msg := agree(sc.Bytes()); msg != "" {
				t.Errorf("%s:%d: %s\n%s", p, n, msg, sc.Bytes())
			}
		}
		f.Close()
	}
	if len(files) < 10 || lines < 1000 {
		t.Fatalf("only %d lines in %d files: the test data moved", lines, len(files))
	}
}

func FuzzDecodeAgrees(f *testing.F) {
	for _, s := range []string{
		`{"client":3,"node":"n2","type":"update","key":"k3","value":"c3-9","expected_rev":7,"outcome":"fail","err":"wrong_last_seq","err_code":10071,"err_seq":8,"err_msg":"wrong last sequence: 8","invoke":100,"complete":200}`,
		`{"client":-1,"type":"fault","fault":"kill","targets":["n1","n2"],"verified":true,"detail":"n1 down","outcome":"ok","invoke":1,"complete":2}`,
		`{"client":1,"type":"get","key":"k","outcome":"ok","err":"not_found","invoke":0,"complete":0}`,
		`{"client":1,"Type":"get","KEY":"k","outcome":"ok","invoke":"5","complete":1e3}`,
		`{"client":1,"value":"\u00e9\ud800","invoke":1,"complete":2,"client":2}`,
		`{"client":1000,"node":"n1","type":"deliver","data":{"consumer":"c0","value":"p0-1","seq":1,"delivered":1},"outcome":"ok","invoke":1,"complete":2}`,
		`{"client":0,"type":"publish","data": { "producer" : "p0", "seq":[1, 2] } ,"outcome":"ok","invoke":1,"complete":2}`,
		`{"client":0,"type":"publish","data":null,"outcome":"ok","invoke":1,"complete":2}`,
		`{"client":0,"type":"publish","data":"x","outcome":"ok","invoke":1,"complete":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"seq":12,"key":"k1","value":"c1-3","op":"del"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if msg := agree(line); msg != "" {
			t.Errorf("%s\n%q", msg, line)
		}
	})
}
