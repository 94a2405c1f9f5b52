// Package exampledb is ent's generated client for a small schema (schema/: orders keyed by
// string IDs, invoices by int64 IDs): the README's example and the hook's tests use it. After
// changing the schema: go generate ./... && go mod tidy.
package exampledb

//go:generate go run -mod=mod entgo.io/ent/cmd/ent generate ./schema
