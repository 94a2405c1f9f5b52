package server

import (
	"context"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// WhoAmI answers from this node alone, with the checks the node applies to the caller's
// other calls (adminBy, keyOf), so what it says is what those calls will meet.
func (s *clusterService) WhoAmI(ctx context.Context, _ *idnodev1.WhoAmIRequest) (*idnodev1.WhoAmIResponse, error) {
	resp := &idnodev1.WhoAmIResponse{Admin: s.adminBy(ctx), KeysRequired: s.node.FSM().HasKeys()}
	for _, token := range bearerTokens(ctx) {
		if k, ok := s.keyOf(ctx, token); ok {
			resp.Key = &idnodev1.KeyStatus{Id: k.ID, Database: k.Database, Role: k.Role}
			break
		}
	}
	return resp, nil
}
