// Package reportstest holds what the tests of package reports and of the
// workloads' report views share: the stored kv-update test run, tar
// archives of runs, writers of fixture files, checks of a rendered page
// (self-contained, every link resolves) and a headless-Chromium harness.
// Only tests import it.
package reportstest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// kvRun is a real kv-update run, trimmed to one key (see
// testdata/README.md), packed because its histories are a megabyte of JSON
// lines.
//
//go:embed testdata/run.tar.gz
var kvRun []byte

// KVRunArchive is where the kv-update test run is kept, relative to this
// package's folder, for the test that rebuilds it.
const KVRunArchive = "testdata/run.tar.gz"

// UnpackKVRun extracts the kv-update test run into a fresh folder and
// returns the run folder: tests write report.html and junit.xml there.
func UnpackKVRun(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := untar(bytes.NewReader(kvRun), "run.tar.gz", dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "run")
}

// UnpackRun extracts archive, which holds one run in a folder of the
// archive's name (catchup.tar.gz: catchup/), into a fresh folder and
// returns the run folder.
func UnpackRun(t testing.TB, archive string) string {
	t.Helper()
	dir := t.TempDir()
	if err := Unpack(archive, dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, strings.TrimSuffix(filepath.Base(archive), ".tar.gz"))
}

// Unpack extracts a gzipped tar into dir.
func Unpack(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	return untar(f, archive, dir)
}

func untar(r io.Reader, archive, dir string) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%s: unsafe path %q", archive, h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			out, err := os.Create(p)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		}
	}
}

// PackDir writes root/name as a gzipped tar with stable order and times,
// so rebuilding from the same run gives the same bytes.
func PackDir(root, name, archive string) error {
	var paths []string
	err := filepath.WalkDir(filepath.Join(root, name), func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	f, err := os.Create(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range paths {
		if err := addFile(tw, root, p, epoch); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func addFile(tw *tar.Writer, root, p string, mtime time.Time) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(root, p)
	h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Mode: 0o644, Format: tar.FormatPAX}
	if st.IsDir() {
		h.Typeflag, h.Mode, h.Name = tar.TypeDir, 0o755, h.Name+"/"
	} else {
		h.Typeflag, h.Size = tar.TypeReg, st.Size()
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if st.IsDir() {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	_, err = tw.Write(b)
	return err
}

// WriteJSON writes v, indented, creating the folders on the way.
func WriteJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	WriteText(t, path, string(append(b, '\n')))
}

// WriteJSONLines writes one JSON value a line.
func WriteJSONLines[T any](t testing.TB, path string, items []T) {
	t.Helper()
	var b strings.Builder
	for _, it := range items {
		line, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	WriteText(t, path, b.String())
}

// WriteText writes s, creating the folders on the way.
func WriteText(t testing.TB, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// CopyFile copies a file, creating the folders on the way.
func CopyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	WriteText(t, to, string(b))
}

// CopyDir copies a folder tree; a missing source is skipped.
func CopyDir(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		CopyFile(t, p, filepath.Join(to, rel))
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}
