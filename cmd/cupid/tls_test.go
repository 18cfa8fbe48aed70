package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1 with the given serial
// number, and its key, to cert and key; it returns the certificate.
func selfSigned(t *testing.T, serial int64, cert, key string) *x509.Certificate {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: "cupid test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	// The key first, then the certificate, as a renewal tool would; each
	// file gets a later modification time than it had.
	later := time.Now().Add(time.Duration(serial) * time.Minute)
	for _, f := range []struct {
		path string
		blk  *pem.Block
	}{{key, &pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}}, {cert, &pem.Block{Type: "CERTIFICATE", Bytes: der}}} {
		if err := os.WriteFile(f.path, pem.EncodeToMemory(f.blk), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(f.path, later, later)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestServeTLS serves HTTPS with HTTP/2 from a self-signed certificate,
// then replaces the certificate's files and sees new connections get the
// new one without a restart.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	first := selfSigned(t, 1, cert, key)
	s := startServer(t, serveFlags{net: netFlags{tlsCert: cert, tlsKey: key}})
	url := strings.Replace(s.url, "http://", "https://", 1)

	pool := x509.NewCertPool()
	pool.AddCert(first)
	served := func() (*http.Response, error) {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
		defer tr.CloseIdleConnections()
		res, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(url + "/healthz")
		if err == nil {
			res.Body.Close()
		}
		return res, err
	}
	res, err := served()
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtoMajor != 2 || res.StatusCode != http.StatusOK {
		t.Fatalf("%s %d, want HTTP/2 200", res.Proto, res.StatusCode)
	}
	if got := res.TLS.PeerCertificates[0].SerialNumber.Int64(); got != 1 {
		t.Fatalf("serial %d, want 1", got)
	}
	// Plain HTTP on the TLS port is not served.
	if res, err := http.Get(s.url + "/healthz"); err == nil && res.StatusCode == http.StatusOK {
		t.Fatal("plain HTTP answered 200 on the TLS port")
	}

	second := selfSigned(t, 2, cert, key)
	pool.AddCert(second)
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := served()
		if err != nil {
			t.Fatal(err)
		}
		if res.TLS.PeerCertificates[0].SerialNumber.Int64() == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new certificate was not served within 10s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestCertReloaderKeepsAGoodPair: a pair that does not load (a key
// written, its certificate not yet) keeps the previous certificate in
// service, and the reload happens once both are there.
func TestCertReloaderKeepsAGoodPair(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	selfSigned(t, 1, cert, key)
	r, err := newCertReloader(cert, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.interval = 0
	serial := func() int64 {
		t.Helper()
		c, err := r.GetCertificate(nil)
		if err != nil {
			t.Fatal(err)
		}
		x, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		return x.SerialNumber.Int64()
	}
	if serial() != 1 {
		t.Fatal("not the first certificate")
	}
	// A new key with the old certificate: a mismatched pair.
	other := filepath.Join(dir, "other")
	selfSigned(t, 3, other+".crt", other+".key")
	b, _ := os.ReadFile(other + ".key")
	os.WriteFile(key, b, 0o600)
	later := time.Now().Add(time.Hour)
	os.Chtimes(key, later, later)
	if serial() != 1 {
		t.Fatal("a mismatched pair replaced the certificate")
	}
	selfSigned(t, 4, cert, key)
	if serial() != 4 {
		t.Fatal("the new pair was not loaded")
	}
	if _, err := newCertReloader(filepath.Join(dir, "none.pem"), key, nil); err == nil || !strings.Contains(err.Error(), "--tls-cert") {
		t.Fatalf("a missing certificate: %v", err)
	}
}

// TestTLSFilesOfTheConfiguration: certificate files named in the
// configuration's server.tls are checked by config check as serve loads
// them, and a failure names the setting they came from, not a flag nobody
// gave.
func TestTLSFilesOfTheConfiguration(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, "queues:\n  - name: duel\n    ruleset:\n      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}\n"+
		"server:\n  tls: {cert_file: "+filepath.Join(dir, "none.crt")+", key_file: "+filepath.Join(dir, "none.key")+"}\n")
	out, err := run("config", "check", cfg)
	if err == nil || !strings.Contains(out, "server.tls.cert_file") || strings.Contains(out, cfg+": ok") {
		t.Fatalf("config check of missing TLS files: %v\n%s", err, out)
	}
	err = serve(context.Background(), serveFlags{addr: "127.0.0.1:0", data: t.TempDir(), config: cfg}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil || !strings.Contains(err.Error(), "server.tls.cert_file") || strings.Contains(err.Error(), "--tls-cert") {
		t.Fatalf("serve with missing TLS files: %v", err)
	}
	// A good pair passes the check.
	selfSigned(t, 1, filepath.Join(dir, "good.crt"), filepath.Join(dir, "good.key"))
	good := writeConfig(t, "queues:\n  - name: duel\n    ruleset:\n      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}\n"+
		"server:\n  tls: {cert_file: "+filepath.Join(dir, "good.crt")+", key_file: "+filepath.Join(dir, "good.key")+"}\n")
	if out, err := run("config", "check", good); err != nil || !strings.Contains(out, good+": ok") {
		t.Fatalf("config check of a good pair: %v\n%s", err, out)
	}
}
