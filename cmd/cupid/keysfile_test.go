package main

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/config"
)

// TestKeyInit: cupid key init makes a keys file holding the hash of the
// key it prints, which the configuration's loader accepts; a second run
// leaves the file alone.
func TestKeyInit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "server-keys.yaml")
	out, err := run("key", "init", path)
	if err != nil {
		t.Fatal(err)
	}
	key := keyRe.FindString(out)
	if key == "" {
		t.Fatalf("no key printed:\n%s", out)
	}
	keys, err := config.LoadServerKeysFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := api.HashKey(key)
	if len(keys) != 1 || keys[0].SHA256 != hex.EncodeToString(h[:]) || keys[0].Scopes[0] != "admin" {
		t.Fatalf("keys file %+v does not hold the printed key's hash with the admin scope", keys)
	}
	before, _ := os.ReadFile(path)
	out, err = run("key", "init", path)
	if err != nil || keyRe.MatchString(out) || !strings.Contains(out, "exists") {
		t.Fatalf("second init: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the second init changed the file")
	}
}

// TestInitKeysOnceAmongMany: processes starting at once on one volume
// make one file and one key between them.
func TestInitKeysOnceAmongMany(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server-keys.yaml")
	var wg sync.WaitGroup
	made := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key, err := initKeysFile(path)
			if err != nil {
				t.Error(err)
			}
			if key != "" {
				made <- key
			}
		}()
	}
	wg.Wait()
	close(made)
	var keys []string
	for k := range made {
		keys = append(keys, k)
	}
	if len(keys) != 1 {
		t.Fatalf("%d keys made, want 1", len(keys))
	}
	saved, err := config.LoadServerKeysFile(path)
	h := api.HashKey(keys[0])
	if err != nil || len(saved) != 1 || saved[0].SHA256 != hex.EncodeToString(h[:]) {
		t.Fatalf("the file holds %+v (%v), not the key that was told", saved, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".server-keys-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestKeysFlagsRefuse: the flags' misuses are refused, naming the flag,
// before anything is made.
func TestKeysFlagsRefuse(t *testing.T) {
	dir := t.TempDir()
	withAuth := &config.Config{Auth: &config.Auth{}}
	for _, c := range []struct {
		name string
		cfg  *config.Config
		f    serveFlags
		want string
	}{
		{"init without a file", &config.Config{}, serveFlags{initKeys: true}, "--init-keys: needs --server-keys-file"},
		{"a file and an auth section", withAuth, serveFlags{serverKeysFile: filepath.Join(dir, "a.yaml"), initKeys: true}, "--server-keys-file: the configuration has an auth section"},
		{"a missing file", &config.Config{}, serveFlags{serverKeysFile: filepath.Join(dir, "b.yaml")}, "--init-keys makes it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := keysFromFlags(c.cfg, c.f, &out)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			if out.Len() != 0 {
				t.Fatalf("printed %q", out.String())
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files made: %v", entries)
	}
}
