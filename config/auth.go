package config

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Auth is who may do what (docs/security.md). Its presence turns auth on:
// every call then needs a server key or a player token.
//
//	auth:
//	  metrics: key                # or open: /metrics and /debug/pprof without a key
//	  server_keys:                # or server_keys_file: keys.yaml
//	    - name: game-backend
//	      sha256: 3b1f…           # the key's SHA-256 (cupid key new prints both)
//	      scopes: [tickets, events]
//	  player_tokens:
//	    audience: cupid
//	    hs256_secret_file: hs256.secret
//	    public_key_files: [studio-ed25519.pem]
type Auth struct {
	// Metrics is "key" (the default: /metrics needs a server key,
	// /debug/pprof one with the admin scope) or "open".
	Metrics string `yaml:"metrics"`
	// ServerKeys lists the server keys inline; the server re-reads them
	// from the configuration file when it changes or on SIGHUP.
	ServerKeys []ServerKey `yaml:"server_keys"`
	// ServerKeysFile names a YAML file holding server_keys instead,
	// relative to the configuration file; it is re-read when it changes or
	// on SIGHUP.
	ServerKeysFile string `yaml:"server_keys_file"`
	// PlayerTokens configure the JWTs of game clients; none are accepted
	// when absent.
	PlayerTokens *PlayerTokens `yaml:"player_tokens"`
}

// ServerKey is one server key: a name, the SHA-256 of the key (never the
// key) in hex, and its scopes.
type ServerKey struct {
	Name   string   `yaml:"name"`
	SHA256 string   `yaml:"sha256"`
	Scopes []string `yaml:"scopes"`
}

// Scopes lists the scopes a server key may have; admin implies the others.
var Scopes = []string{"tickets", "rulesets", "events", "opponents", "admin"}

// Hash returns the key's hash as bytes; the configuration is checked, so
// it is well formed.
func (k ServerKey) Hash() [32]byte {
	var h [32]byte
	hex.Decode(h[:], []byte(k.SHA256))
	return h
}

// PlayerTokens configure the JWTs game clients send: their audience, and
// the keys that verify them (an HS256 secret, and Ed25519 or RSA public
// keys for EdDSA and RS256).
type PlayerTokens struct {
	// Audience must be in a token's aud; required.
	Audience string `yaml:"audience"`
	// Issuer, when set, must be a token's iss.
	Issuer string `yaml:"issuer"`
	// Leeway forgives clock skew on exp, nbf and iat; 30s when absent.
	Leeway Duration `yaml:"leeway"`
	// HS256SecretFile names a file holding the shared HS256 secret (at
	// least 32 bytes; a trailing newline is ignored).
	HS256SecretFile string `yaml:"hs256_secret_file"`
	// HS256SecretEnv names an environment variable holding it instead.
	HS256SecretEnv string `yaml:"hs256_secret_env"`
	// PublicKeyFiles are PEM public keys: Ed25519 keys verify EdDSA
	// tokens, RSA keys (2048 bits or more) RS256 tokens.
	PublicKeyFiles []string `yaml:"public_key_files"`

	secret     []byte
	publicKeys []crypto.PublicKey
}

// Secret is the HS256 secret read at load; nil when none.
func (t *PlayerTokens) Secret() []byte { return t.secret }

// PublicKeys are the public keys read at load.
func (t *PlayerTokens) PublicKeys() []crypto.PublicKey { return t.publicKeys }

// The metrics settings.
const (
	MetricsKey  = "key"
	MetricsOpen = "open"
)

// maxLeeway bounds player_tokens.leeway: clocks are not that far apart.
const maxLeeway = 5 * time.Minute

// load checks the auth section, resolves its files against dir and reads
// them (the keys file, the secret, the public keys), reporting every
// problem to doc.
func (a *Auth) load(doc *document, dir string, readFile func(string) ([]byte, error)) {
	switch a.Metrics {
	case "":
		a.Metrics = MetricsKey
	case MetricsKey, MetricsOpen:
	default:
		doc.report(cupid.Invalid("auth.metrics", "must be key or open, got %q", a.Metrics))
	}
	switch {
	case a.ServerKeysFile != "" && len(a.ServerKeys) > 0:
		doc.report(cupid.Invalid("auth.server_keys_file", "give server_keys or server_keys_file, not both"))
	case a.ServerKeysFile != "":
		a.ServerKeysFile = resolvePath(dir, a.ServerKeysFile)
		keys, err := loadServerKeys(a.ServerKeysFile, readFile)
		switch err.(type) {
		case nil:
			a.ServerKeys = keys
		case Errors, *Error:
			doc.reportFile("auth.server_keys_file", err)
		default:
			doc.report(cupid.Invalid("auth.server_keys_file", "%v", err))
		}
	default:
		checkServerKeys(doc, "auth.server_keys", a.ServerKeys)
		if len(a.ServerKeys) == 0 && a.PlayerTokens == nil && doc.known("auth.server_keys") && doc.known("auth.player_tokens") {
			doc.report(cupid.Invalid("auth", "auth lets in only server_keys (or a server_keys_file) and player_tokens, and has neither: list at least one (cupid key new makes a key)"))
		}
	}
	if a.PlayerTokens != nil {
		a.PlayerTokens.load(doc, dir, readFile)
	}
}

func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// checkServerKeys checks names, hashes and scopes, reporting every problem
// to doc; field is where the list is ("auth.server_keys", or "server_keys"
// in a keys file).
func checkServerKeys(doc *document, field string, keys []ServerKey) {
	names := map[string]int{}
	hashes := map[string]int{}
	for i := range keys {
		k := &keys[i]
		f := fmt.Sprintf("%s[%d]", field, i)
		if err := checkKeyName(f+".name", k.Name); err != nil {
			doc.report(err)
		} else if j, dup := names[k.Name]; dup {
			doc.report(cupid.Invalid(f+".name", "key %q is also %s[%d]", k.Name, field, j))
		} else {
			names[k.Name] = i
		}
		hashOK := false
		switch h := k.SHA256; {
		case h == "":
			doc.report(cupid.Invalid(f+".sha256", "is required: the key's SHA-256 in hex (cupid key new prints a key and its hash)"))
		case strings.HasPrefix(h, KeyPrefix):
			doc.report(cupid.Invalid(f+".sha256", "holds a key itself; configure its hash instead (cupid key hash prints it), and keep the key secret"))
		case len(h) != 64:
			doc.report(cupid.Invalid(f+".sha256", "must be 64 hex digits (a SHA-256), got %d characters", len(h)))
		default:
			if _, err := hex.DecodeString(h); err != nil {
				doc.report(cupid.Invalid(f+".sha256", "must be 64 hex digits (a SHA-256): %v", err))
			} else {
				hashOK = true
			}
		}
		k.SHA256 = strings.ToLower(k.SHA256)
		if hashOK {
			if j, dup := hashes[k.SHA256]; dup {
				doc.report(cupid.Invalid(f+".sha256", "the same hash as %s[%d]: each key must be its own", field, j))
			} else {
				hashes[k.SHA256] = i
			}
		}
		if len(k.Scopes) == 0 {
			if doc.known(f + ".scopes") {
				doc.report(cupid.Invalid(f+".scopes", "at least one scope is required, from %s", strings.Join(Scopes, ", ")))
			}
			continue
		}
		for j, s := range k.Scopes {
			if !slices.Contains(Scopes, s) {
				doc.report(cupid.Invalid(fmt.Sprintf("%s.scopes[%d]", f, j), "unknown scope %q; the scopes are %s", s, strings.Join(Scopes, ", ")))
			}
		}
	}
}

// checkKeyName accepts names safe in logs and error messages.
func checkKeyName(field, name string) error {
	if name == "" {
		return cupid.Invalid(field, "is required: it names the key in logs and errors")
	}
	if len(name) > 64 {
		return cupid.Invalid(field, "longer than 64 bytes")
	}
	for _, r := range name {
		ok := r == '_' || r == '-' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return cupid.Invalid(field, "%q may hold only letters, digits, '.', '_' and '-'", name)
		}
	}
	return nil
}

// KeyPrefix starts every key cupid key new makes, so a key is recognised
// where it should not be (a hash setting, a repository).
const KeyPrefix = "cupid_sk_"

// keysFile is the shape of a server_keys_file.
type keysFile struct {
	ServerKeys []ServerKey `yaml:"server_keys"`
}

// LoadServerKeysFile reads a server_keys_file; its errors name the file,
// the line and the setting. An empty list is allowed: every key revoked.
func LoadServerKeysFile(path string) ([]ServerKey, error) {
	return loadServerKeys(path, os.ReadFile)
}

func loadServerKeys(path string, readFile func(string) ([]byte, error)) ([]ServerKey, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, inFile(Errors{{Message: "the file is empty: write server_keys: [] to revoke every key"}}, path)
	}
	doc, err := readDocument(data)
	if err != nil {
		return nil, inFile(Errors{err.(*Error)}, path)
	}
	var f keysFile
	if decodeValue(doc, data, &f) {
		checkServerKeys(doc, "server_keys", f.ServerKeys)
	}
	if err := doc.errors(); err != nil {
		return nil, inFile(err, path)
	}
	if f.ServerKeys == nil {
		f.ServerKeys = []ServerKey{}
	}
	return f.ServerKeys, nil
}

// load checks the player tokens' settings and reads their secret and keys,
// reporting every problem to doc.
func (t *PlayerTokens) load(doc *document, dir string, readFile func(string) ([]byte, error)) {
	const f = "auth.player_tokens"
	if t.Audience == "" {
		doc.report(cupid.Invalid(f+".audience", "is required: the aud player tokens must carry (such as cupid)"))
	}
	if t.Leeway < 0 || time.Duration(t.Leeway) > maxLeeway {
		doc.report(cupid.Invalid(f+".leeway", "must be between 0 and %v, got %v", maxLeeway, time.Duration(t.Leeway)))
	}
	// keysKnown stays true while every key given was read, so that "needs
	// a key" is said only of a section that names none.
	keysKnown := doc.known(f+".hs256_secret_file") && doc.known(f+".hs256_secret_env") && doc.known(f+".public_key_files")
	switch {
	case t.HS256SecretFile != "" && t.HS256SecretEnv != "":
		doc.report(cupid.Invalid(f+".hs256_secret_env", "give hs256_secret_file or hs256_secret_env, not both"))
		keysKnown = false
	case t.HS256SecretFile != "":
		t.HS256SecretFile = resolvePath(dir, t.HS256SecretFile)
		b, err := readFile(t.HS256SecretFile)
		if err != nil {
			doc.report(cupid.Invalid(f+".hs256_secret_file", "%v", err))
			keysKnown = false
			break
		}
		t.secret = bytes.TrimRight(b, "\r\n")
		if len(t.secret) < 32 {
			doc.report(cupid.Invalid(f+".hs256_secret_file", "the secret in %s is %d bytes; HS256 needs at least 32 (openssl rand -base64 48 makes one)", t.HS256SecretFile, len(t.secret)))
		}
	case t.HS256SecretEnv != "":
		v, ok := os.LookupEnv(t.HS256SecretEnv)
		if !ok {
			doc.report(cupid.Invalid(f+".hs256_secret_env", "the environment variable %s is not set", t.HS256SecretEnv))
			keysKnown = false
			break
		}
		t.secret = []byte(v)
		if len(t.secret) < 32 {
			doc.report(cupid.Invalid(f+".hs256_secret_env", "the secret in %s is %d bytes; HS256 needs at least 32", t.HS256SecretEnv, len(t.secret)))
		}
	}
	for i, p := range t.PublicKeyFiles {
		field := fmt.Sprintf("%s.public_key_files[%d]", f, i)
		p = resolvePath(dir, p)
		t.PublicKeyFiles[i] = p
		b, err := readFile(p)
		if err != nil {
			doc.report(cupid.Invalid(field, "%v", err))
			keysKnown = false
			continue
		}
		k, err := ParsePublicKey(b)
		if err != nil {
			doc.report(cupid.Invalid(field, "%s: %v", p, err))
			keysKnown = false
			continue
		}
		t.publicKeys = append(t.publicKeys, k)
	}
	if keysKnown && t.secret == nil && len(t.publicKeys) == 0 {
		doc.report(cupid.Invalid(f, "needs a key to verify tokens: hs256_secret_file, hs256_secret_env or public_key_files"))
	}
}

// ParsePublicKey reads a PEM public key that verifies player tokens: an
// Ed25519 key (EdDSA) or an RSA key of 2048 bits or more (RS256), as
// "PUBLIC KEY" (PKIX) or "RSA PUBLIC KEY" (PKCS #1).
func ParsePublicKey(b []byte) (crypto.PublicKey, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("not a PEM file (it should start with -----BEGIN PUBLIC KEY-----)")
	}
	var k any
	var err error
	switch blk.Type {
	case "PUBLIC KEY":
		k, err = x509.ParsePKIXPublicKey(blk.Bytes)
	case "RSA PUBLIC KEY":
		k, err = x509.ParsePKCS1PublicKey(blk.Bytes)
	case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY":
		return nil, fmt.Errorf("holds a private key (%s); give the server only the public key", blk.Type)
	default:
		return nil, fmt.Errorf("a PEM block of type %q; a PUBLIC KEY is needed", blk.Type)
	}
	if err != nil {
		return nil, err
	}
	switch k := k.(type) {
	case ed25519.PublicKey:
		return k, nil
	case *rsa.PublicKey:
		if k.N.BitLen() < 2048 {
			return nil, fmt.Errorf("an RSA key of %d bits; at least 2048 are needed", k.N.BitLen())
		}
		return k, nil
	}
	return nil, fmt.Errorf("a %T key; only Ed25519 (EdDSA) and RSA (RS256) keys verify player tokens", k)
}
