package server

import (
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// openMethods are the public calls that need neither an admin token nor an API key: they
// read what any caller that reaches the port may know (the cluster's state, who the caller
// is, what an ID's shape says).
var openMethods = map[string]bool{
	idnodev1.IdService_Explain_FullMethodName:             true,
	idnodev1.ClusterService_Status_FullMethodName:         true,
	idnodev1.ClusterService_WhoAmI_FullMethodName:         true,
	idnodev1.ClusterService_ListDatabases_FullMethodName:  true,
	idnodev1.ClusterService_ClusterVersion_FullMethodName: true,
}

// Every public call states who may make it: an admin (adminMethods) or a key of a role
// (roleFor), or it is one of openMethods. A call added with neither would need no key at all
// once a cluster has keys, so a new RPC fails here until its author decides.
func TestEveryPublicCallStatesWhoMayMakeIt(t *testing.T) {
	t.Parallel()
	for _, pm := range publicMethods() {
		method := pm.fullName()
		stated := 0
		for _, ok := range []bool{adminMethods[method], roleFor(method) != "", openMethods[method]} {
			if ok {
				stated++
			}
		}
		if stated != 1 {
			t.Errorf("%s: admin %v, key role %q, open %v; want exactly one (auth.go adminMethods, keys.go roleFor, or openMethods here)",
				method, adminMethods[method], roleFor(method), openMethods[method])
		}
	}
}
