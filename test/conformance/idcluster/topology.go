package main

import (
	"fmt"
	"slices"
	"strings"
)

// TLS modes of a topology.
const (
	tlsNone   = ""
	tlsServer = "server"
	tlsMutual = "mutual"
)

// topology is what start builds (README: the topology).
type topology struct {
	Nodes              int               `json:"nodes"`
	HiLoPools          *bool             `json:"hiloPools"`
	TLS                string            `json:"tls"`
	HTTPAllowedOrigins []string          `json:"httpAllowedOrigins"`
	Databases          []string          `json:"databases"`
	Keys               map[string]apiKey `json:"keys"`
	AdminToken         string            `json:"adminToken"`
	// Regions maps a node's tag to its --region label; a node it leaves out has none.
	Regions map[string]string `json:"regions"`
	// Opaque are the admin MakeOpaque calls made once the databases exist, in order.
	Opaque []opaqueSetting `json:"opaque"`
}

// opaqueSetting is one MakeOpaque call of a topology: collections of a database ("" is
// "default"), and with numeric its numeric IDs, turned opaque.
type opaqueSetting struct {
	Database    string   `json:"database"`
	Collections []string `json:"collections"`
	Numeric     bool     `json:"numeric"`
}

type apiKey struct {
	Database string `json:"database"`
	Role     string `json:"role"`
}

// Bounds of what a topology may ask for: this program starts real processes.
const (
	maxNodes  = 5
	maxSetUp  = 64 // databases, and keys
	maxToken  = 256
	maxRegion = 64
)

func (t *topology) check() error {
	if t.Nodes == 0 {
		t.Nodes = 1
	}
	if t.TLS == "none" {
		t.TLS = tlsNone
	}
	switch {
	case t.Nodes < 1 || t.Nodes > maxNodes || t.Nodes == 2 || t.Nodes == 4:
		return fmt.Errorf("topology.nodes is %d: 1, 3 or 5", t.Nodes)
	case t.TLS != tlsNone && t.TLS != tlsServer && t.TLS != tlsMutual:
		return fmt.Errorf(`topology.tls is %q: "none", "server" or "mutual"`, t.TLS)
	case len(t.Databases) > maxSetUp || len(t.Keys) > maxSetUp || len(t.Opaque) > maxSetUp:
		return fmt.Errorf("topology: at most %d databases, %d keys and %d opaque settings", maxSetUp, maxSetUp, maxSetUp)
	case len(t.AdminToken) > maxToken || strings.ContainsFunc(t.AdminToken, func(r rune) bool { return r <= ' ' || r > '~' }):
		return fmt.Errorf("topology.adminToken: at most %d printable ASCII characters without spaces", maxToken)
	}
	for tag, region := range t.Regions {
		if len(tag) != 1 || tag[0] < 'A' || int(tag[0]-'A') >= t.Nodes {
			return fmt.Errorf("topology.regions names node %q: the nodes are A to %c", tag, rune('A'+t.Nodes-1))
		}
		if region == "" || len(region) > maxRegion || strings.ContainsFunc(region, func(r rune) bool { return r <= ' ' || r > '~' }) {
			return fmt.Errorf("topology.regions[%q]: 1 to %d printable ASCII characters without spaces", tag, maxRegion)
		}
	}
	for i, o := range t.Opaque {
		if len(o.Collections) > maxSetUp || (len(o.Collections) == 0 && !o.Numeric) {
			return fmt.Errorf("topology.opaque[%d]: 1 to %d collections, or numeric", i, maxSetUp)
		}
	}
	for name, k := range t.Keys {
		if name == "" || k.Role == "" {
			return fmt.Errorf("topology.keys[%q]: a key needs a name and a role (reader, writer, admin)", name)
		}
	}
	return nil
}

func (t topology) hiloPools() bool { return t.HiLoPools == nil || *t.HiLoPools }

// keyNames are the keys' names in order, so keys are made in the same order every run.
func (t topology) keyNames() []string {
	names := make([]string, 0, len(t.Keys))
	for name := range t.Keys {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
