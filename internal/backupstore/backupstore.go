// Package backupstore keeps backup files where a cluster's scheduled backups go: a folder
// (Dir) or an S3-compatible bucket (S3). A store holds whole named objects; it neither encrypts
// (internal/backupcrypt does, before Put) nor checks what it hands back: Put returns the Sum
// of what it stored, the caller keeps it, and Verify checks an object read back against it.
package backupstore

import (
	"context"
	"errors"
	"io"
	"time"
)

// Store is a place that holds backups.
type Store interface {
	// Put stores everything r yields under name, replacing an object of that name. Only when
	// it returns nil is the object stored whole and durably (it survives a power cut); after
	// an error, name holds its old object or none, never a part of the new one.
	Put(ctx context.Context, name string, r io.Reader) (Sum, error)
	// List returns the objects held, by name.
	List(ctx context.Context) ([]Object, error)
	// Open reads the object name as it is stored; an error matches ErrNotFound when there is
	// no such object.
	Open(ctx context.Context, name string) (io.ReadCloser, error)
	// Delete removes the object name; deleting one that is not there is no error.
	Delete(ctx context.Context, name string) error
	// String names the store in messages: the folder, or the bucket and its endpoint.
	String() string
}

// Object is one stored object as List sees it.
type Object struct {
	Name     string
	Size     int64
	Modified time.Time
}

var (
	// ErrNotFound matches Open's error for a name the store does not hold.
	ErrNotFound = errors.New("backupstore: no such object")
	// ErrNoFolder matches OpenDir's error for a folder that does not exist.
	ErrNoFolder = errors.New("the folder does not exist")
)
