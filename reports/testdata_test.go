package reports

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// unpackRun extracts the kv-update test run (a real run, trimmed: see
// TestMakeTestdata and reportstest/testdata/README.md) into a fresh folder and returns
// the run folder: tests write report.html and junit.xml there, never in
// testdata.
func unpackRun(t testing.TB) string { return reportstest.UnpackKVRun(t) }
