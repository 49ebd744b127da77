package external

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// pki writes a CA and a certificate it signed for 127.0.0.1 (server and
// client use), and returns the file names.
func pki(t *testing.T) (ca, cert, key string) {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "chaos test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	caCert, _ := x509.ParseCertificate(caDER)
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, caCert, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(leafKey)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("cert.pem", "CERTIFICATE", leafDER), write("key.pem", "EC PRIVATE KEY", keyDER)
}

// TestTLSAndNKeyReachEveryConnection: a server that demands a client
// certificate signed by its CA and an nkey user is reached by the survey,
// the preflight, and by a workload's own connection through
// Node.ClientOption; without the certificate it is not.
func TestTLSAndNKeyReachEveryConnection(t *testing.T) {
	ca, cert, key := pki(t)
	user, _ := nkeys.CreateUser()
	seed, _ := user.Seed()
	pub, _ := user.PublicKey()
	seedFile := filepath.Join(t.TempDir(), "user.nk")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	tlsCfg, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: cert, KeyFile: key, CaFile: ca, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	tc := startCluster(t, 1, func(_ int, o *server.Options) {
		o.TLSConfig, o.TLSVerify, o.TLS = tlsCfg, true, true
		o.Nkeys = []*server.NkeyUser{{Nkey: pub}}
	})
	ctx := context.Background()
	o := tc.options()
	o.Auth = Auth{NKey: seedFile, TLSCA: ca, TLSCert: cert, TLSKey: key}
	o.Streams = []Stream{kvStream("chaos_tls", 1)}
	rt := newRuntime(t, o)
	ext, err := rt.Survey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "nkey " + seedFile + ", TLS CA " + ca + ", TLS client cert " + cert; ext.Auth != want {
		t.Errorf("auth recorded as %q, want %q", ext.Auth, want)
	}
	if err := rt.Preflight(ctx, false); err != nil {
		t.Errorf("preflight: %v", err)
	}
	n := rt.nodes()[0]
	nc, err := nats.Connect(n.ClientURL, nats.Timeout(2*time.Second), n.ClientOption())
	if err != nil {
		t.Fatalf("a workload's connection with Node.ClientOption: %v", err)
	}
	if cs, err := nc.TLSConnectionState(); err != nil || cs.Version < tls.VersionTLS12 {
		t.Errorf("not over TLS: %v", err)
	}
	nc.Close()

	o.Auth = Auth{NKey: seedFile, TLSCA: ca} // no client certificate
	if _, err := newRuntime(t, o).Survey(ctx); err == nil {
		t.Errorf("a server that demands a client certificate was reached without one")
	}
	o.Auth = Auth{TLSCA: ca, TLSCert: cert, TLSKey: key} // no nkey
	if _, err := newRuntime(t, o).Survey(ctx); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "Authorization Violation") {
		t.Errorf("no nkey: %v", err)
	}
}
