package fsm

import (
	"fmt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Key roles, weakest first: each may do what the ones before it may.
const (
	RoleReader = "reader"
	RoleWriter = "writer"
	RoleAdmin  = "admin"
)

// RoleRank orders the roles; 0 is not a role.
func RoleRank(role string) int {
	switch role {
	case RoleReader:
		return 1
	case RoleWriter:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// Key is an API key as the FSM keeps it: only the SHA-256 of its secret.
type Key struct {
	ID           string
	Database     string // canonical
	Role         string
	SecretSHA256 []byte
}

func (st *state) applyCreateKey(c *raftv1.CreateKey) any {
	switch {
	case c.GetId() == "" || len(c.GetSecretSha256()) != 32:
		return fmt.Errorf("%w: id %q, %d-byte hash", ErrInvalidKey, c.GetId(), len(c.GetSecretSha256()))
	case RoleRank(c.GetRole()) == 0:
		return fmt.Errorf("%w: role %q (want %s, %s or %s)", ErrInvalidKey, c.GetRole(), RoleReader, RoleWriter, RoleAdmin)
	case st.keys[c.GetId()] != nil:
		return fmt.Errorf("%w: %s", ErrKeyExists, c.GetId())
	}
	if _, err := st.db(c.GetDatabase()); err != nil {
		return err
	}
	st.keys[c.GetId()] = &Key{ID: c.GetId(), Database: DatabaseName(c.GetDatabase()), Role: c.GetRole(), SecretSHA256: append([]byte(nil), c.GetSecretSha256()...)}
	return nil
}

func (st *state) applyDeleteKey(c *raftv1.DeleteKey) any {
	if st.keys[c.GetId()] == nil {
		return fmt.Errorf("%w: %s", ErrKeyNotFound, c.GetId())
	}
	delete(st.keys, c.GetId())
	return nil
}

// deleteKeysOf deletes the API keys of the database name (canonical). A key outliving its
// database would work again on a database created later under the same name, for whoever
// creates it, with data the key's holder was never given.
func (st *state) deleteKeysOf(name string) {
	for id, k := range st.keys {
		if k.Database == name {
			delete(st.keys, id)
		}
	}
}

// Key returns the API key id, if there is one.
func (f *FSM) Key(id string) (Key, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	k := f.st.keys[id]
	if k == nil {
		return Key{}, false
	}
	return *k, true
}

// HasKeys reports whether the cluster has any API key: then IdService calls need one.
func (f *FSM) HasKeys() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return len(f.st.keys) > 0
}

// Keys lists the API keys by id, without their hashes.
func (f *FSM) Keys() []Key {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]Key, 0, len(f.st.keys))
	for _, id := range sortedKeys(f.st.keys) {
		k := *f.st.keys[id]
		k.SecretSHA256 = nil
		out = append(out, k)
	}
	return out
}
