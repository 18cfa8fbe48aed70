package config

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// testHash is the SHA-256 of "k1" (any 64 hex digits would do).
const testHash = "9e9a2a4e3bd3a4d3a8ae4f2a3cbbcc6d3bd0bd5d9a1ef3b7ff70cfd5e3f51c3c"

// writeAuthFiles writes an HS256 secret, an Ed25519 and an RSA public key
// and a keys file into dir.
func writeAuthFiles(t *testing.T, dir string) {
	t.Helper()
	edPub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	smallRSA, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	pub := func(k any) []byte {
		b, err := x509.MarshalPKIXPublicKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: b})
	}
	priv, err := x509.MarshalPKCS8PrivateKey(rsaKey)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"hs.secret":    []byte(strings.Repeat("s", 40) + "\n"),
		"short.secret": []byte("short\n"),
		"ed.pem":       pub(edPub),
		"rsa.pem":      pub(&rsaKey.PublicKey),
		"small.pem":    pub(&smallRSA.PublicKey),
		"private.pem":  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: priv}),
		"junk.pem":     []byte("not a key"),
		"keys.yaml":    []byte("server_keys:\n  - {name: k1, sha256: " + testHash + ", scopes: [tickets]}\n"),
		"badkeys.yaml": []byte("server_keys:\n  - name: k1\n    sha256: " + testHash + "\n    scopes: [tickets, everything]\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// authRows are TestEverySettingIsRead's rows for the auth section.
func authRows(t *testing.T, dir string) []struct {
	setting string
	yaml    string
	read    func(*Config) bool
} {
	writeAuthFiles(t, dir)
	key := oneQueue + "auth:\n  server_keys: [{name: k1, sha256: " + testHash + ", scopes: [tickets, admin]}]\n"
	tokens := func(extra string) string {
		return oneQueue + "auth:\n  player_tokens: {audience: cupid, hs256_secret_file: hs.secret" + extra + "}\n"
	}
	t.Setenv("CUPID_TEST_SECRET", strings.Repeat("e", 32))
	return []struct {
		setting string
		yaml    string
		read    func(*Config) bool
	}{
		{"opponents[].players_may_update", finderYAML("players_may_update: true"), func(c *Config) bool { return c.Opponents[0].PlayersMayUpdate }},
		{"auth.metrics", key + "  metrics: open\n", func(c *Config) bool { return c.Auth.Metrics == MetricsOpen }},
		{"auth.server_keys[].name", key, func(c *Config) bool { return c.Auth.ServerKeys[0].Name == "k1" }},
		{"auth.server_keys[].sha256", key, func(c *Config) bool { return c.Auth.ServerKeys[0].SHA256 == testHash }},
		{"auth.server_keys[].scopes", key, func(c *Config) bool {
			return reflect.DeepEqual(c.Auth.ServerKeys[0].Scopes, []string{"tickets", "admin"})
		}},
		{"auth.server_keys_file", oneQueue + "auth: {server_keys_file: keys.yaml}\n", func(c *Config) bool {
			return c.Auth.ServerKeysFile == filepath.Join(dir, "keys.yaml") && c.Auth.ServerKeys[0].Name == "k1"
		}},
		{"auth.player_tokens.audience", tokens(""), func(c *Config) bool { return c.Auth.PlayerTokens.Audience == "cupid" }},
		{"auth.player_tokens.issuer", tokens(", issuer: studio"), func(c *Config) bool { return c.Auth.PlayerTokens.Issuer == "studio" }},
		{"auth.player_tokens.leeway", tokens(", leeway: 10s"), func(c *Config) bool {
			return time.Duration(c.Auth.PlayerTokens.Leeway) == 10*time.Second
		}},
		{"auth.player_tokens.hs256_secret_file", tokens(""), func(c *Config) bool {
			return string(c.Auth.PlayerTokens.Secret()) == strings.Repeat("s", 40)
		}},
		{"auth.player_tokens.hs256_secret_env", oneQueue + "auth:\n  player_tokens: {audience: cupid, hs256_secret_env: CUPID_TEST_SECRET}\n",
			func(c *Config) bool { return string(c.Auth.PlayerTokens.Secret()) == strings.Repeat("e", 32) }},
		{"auth.player_tokens.public_key_files", oneQueue + "auth:\n  player_tokens: {audience: cupid, public_key_files: [ed.pem, rsa.pem]}\n",
			func(c *Config) bool { return len(c.Auth.PlayerTokens.PublicKeys()) == 2 }},
	}
}

func TestAuthErrorsNameLineAndSetting(t *testing.T) {
	dir := t.TempDir()
	writeAuthFiles(t, dir)
	head := oneQueue + "auth:\n"
	cases := []struct {
		name, yaml string
		line       int
		field      string
		message    string
	}{
		{"empty", oneQueue + "auth: {metrics: key}\n", 3, "auth", "neither"},
		{"metrics", head + "  metrics: closed\n  server_keys: [{name: k, sha256: " + testHash + ", scopes: [admin]}]\n", 4, "auth.metrics", "key or open"},
		{"short hash", head + "  server_keys:\n    - name: k\n      sha256: abc\n      scopes: [tickets]\n", 6, "auth.server_keys[0].sha256", "64 hex digits"},
		{"not hex", head + "  server_keys:\n    - name: k\n      sha256: " + strings.Repeat("z", 64) + "\n      scopes: [tickets]\n", 6, "auth.server_keys[0].sha256", "hex"},
		{"the key itself", head + "  server_keys:\n    - name: k\n      sha256: cupid_sk_abc\n      scopes: [tickets]\n", 6, "auth.server_keys[0].sha256", "a key itself"},
		{"unknown scope", head + "  server_keys:\n    - name: k\n      sha256: " + testHash + "\n      scopes: [tickets, ticket]\n", 7, "auth.server_keys[0].scopes[1]", `unknown scope "ticket"`},
		{"no scopes", head + "  server_keys:\n    - name: k\n      sha256: " + testHash + "\n", 5, "auth.server_keys[0].scopes", "at least one scope"},
		{"no name", head + "  server_keys:\n    - sha256: " + testHash + "\n      scopes: [tickets]\n", 5, "auth.server_keys[0].name", "required"},
		{"same hash", head + "  server_keys:\n    - {name: a, sha256: " + testHash + ", scopes: [tickets]}\n    - {name: b, sha256: " + strings.ToUpper(testHash) + ", scopes: [tickets]}\n",
			6, "auth.server_keys[1].sha256", "same hash"},
		{"both", head + "  server_keys_file: keys.yaml\n  server_keys: [{name: k, sha256: " + testHash + ", scopes: [admin]}]\n", 4, "auth.server_keys_file", "not both"},
		{"unreadable keys file", head + "  server_keys_file: missing.yaml\n", 4, "auth.server_keys_file", "no such file"},
		{"no audience", head + "  player_tokens:\n    hs256_secret_file: hs.secret\n", 4, "auth.player_tokens.audience", "required"},
		{"no key", head + "  player_tokens:\n    audience: cupid\n", 4, "auth.player_tokens", "needs a key"},
		{"short secret", head + "  player_tokens:\n    audience: cupid\n    hs256_secret_file: short.secret\n", 6, "auth.player_tokens.hs256_secret_file", "at least 32"},
		{"missing secret", head + "  player_tokens:\n    audience: cupid\n    hs256_secret_file: none.secret\n", 6, "auth.player_tokens.hs256_secret_file", "no such file"},
		{"unset env", head + "  player_tokens:\n    audience: cupid\n    hs256_secret_env: CUPID_NOT_SET_ANYWHERE\n", 6, "auth.player_tokens.hs256_secret_env", "not set"},
		{"junk pem", head + "  player_tokens:\n    audience: cupid\n    public_key_files: [ed.pem, junk.pem]\n", 6, "auth.player_tokens.public_key_files[1]", "not a PEM"},
		{"private pem", head + "  player_tokens:\n    audience: cupid\n    public_key_files: [private.pem]\n", 6, "auth.player_tokens.public_key_files[0]", "private key"},
		{"small rsa", head + "  player_tokens:\n    audience: cupid\n    public_key_files: [small.pem]\n", 6, "auth.player_tokens.public_key_files[0]", "1024 bits"},
		{"leeway", head + "  player_tokens:\n    audience: cupid\n    leeway: 1h\n    hs256_secret_file: hs.secret\n", 6, "auth.player_tokens.leeway", "between 0 and 5m"},
		{"unknown setting", head + "  player_token: {audience: cupid}\n", 4, "auth.player_token", "did you mean player_tokens?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.yaml), dir)
			e := problemAt(err, c.field)
			if e == nil {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if e.Line != c.line || e.Field != c.field || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("err = %q (line %d, field %q), want line %d, field %q, %q", err, e.Line, e.Field, c.line, c.field, c.message)
			}
		})
	}
}

func TestServerKeysFileErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	writeAuthFiles(t, dir)
	_, err := ParseConfig([]byte(oneQueue+"auth: {server_keys_file: badkeys.yaml}\n"), dir)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want an *Error", err)
	}
	if e.File != filepath.Join(dir, "badkeys.yaml") || e.Line != 4 || e.Field != "server_keys[0].scopes[1]" {
		t.Fatalf("err = %q (file %s, line %d, field %q), want badkeys.yaml line 4, server_keys[0].scopes[1]", err, e.File, e.Line, e.Field)
	}
	keys, err := LoadServerKeysFile(filepath.Join(dir, "keys.yaml"))
	if err != nil || len(keys) != 1 || keys[0].Hash()[0] != 0x9e {
		t.Fatalf("keys = %+v, %v", keys, err)
	}
	empty := filepath.Join(dir, "none.yaml")
	os.WriteFile(empty, []byte("server_keys: []\n"), 0o600)
	if keys, err := LoadServerKeysFile(empty); err != nil || len(keys) != 0 {
		t.Fatalf("an empty list: %v, %v; want no keys and no error (every key revoked)", keys, err)
	}
	os.WriteFile(empty, nil, 0o600)
	if _, err := LoadServerKeysFile(empty); err == nil || !strings.Contains(err.Error(), "server_keys: []") {
		t.Fatalf("an empty file: %v, want a refusal suggesting server_keys: []", err)
	}
}
