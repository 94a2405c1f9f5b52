package server

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
)

// A restore puts each database's opaque setting and key back (fsm/DESIGN.md, "Opaque
// collections"), before any floor moves: a database whose key differs from the backup's, or a
// cluster whose version has no MakeOpaque yet, refuses the restore with nothing changed, and a
// collection's check against plain IDs meets this cluster's own counter, not the backup's
// raised into it.

// opaqueRestorable refuses, before the restore changes anything, a backup holding opaque keys
// that this cluster cannot take: the cluster version does not include MakeOpaque yet (a member
// on an older build would halt on it), or a database here holds another key than the
// backup's, or plain IDs of one side could equal opaque forms of the other
// (fsm.CheckOpaqueRestore: a database's numeric IDs plain on one side and opaque on the
// other, or a collection opaque on one side and plain on the other with its counter at
// fsm.OpaquePlainLimit or above). Each MakeOpaque and RaiseFloor checks again as it applies
// (the authority); this check only keeps a backup of several databases from putting some keys
// back, or moving some floors, before one is refused.
func (s *core) opaqueRestorable(b *fsm.Backup) error {
	if err := s.node.FSM().CheckOpaqueRestore(b); err != nil {
		return toStatus(fmt.Errorf("%w; nothing was restored", err))
	}
	if !b.HoldsKeys() {
		return nil
	}
	if err := s.versionAllows(fsm.MakeOpaqueCommand); err != nil {
		names := make([]string, len(b.Opaque))
		for i, o := range b.Opaque {
			names[i] = fsm.DatabaseName(o.GetDatabase())
		}
		return status.Errorf(codes.FailedPrecondition, "the backup holds the opaque keys of databases %s, which this cluster can keep from cluster version %d on; nothing was restored: %s",
			strings.Join(names, ", "), fsm.VersionOf(fsm.MakeOpaqueCommand), status.Convert(err).Message())
	}
	for _, o := range b.Opaque {
		if have, ok := s.node.FSM().Opaque(o.GetDatabase()); ok && !bytes.Equal(have.Key, o.GetKey()) {
			return toStatus(fmt.Errorf("%w: database %q holds the key %s, the backup %s; nothing was restored", fsm.ErrOpaqueKeyDiffers,
				fsm.DatabaseName(o.GetDatabase()), fsm.OpaqueKeyFingerprint(have.Key), fsm.OpaqueKeyFingerprint(o.GetKey())))
		}
	}
	return nil
}

// restoreOpaque proposes the backup's opaque settings and keys, one database a command, and
// returns how many databases turned opaque here or gained something (a collection, numeric).
func (s *core) restoreOpaque(ctx context.Context, b *fsm.Backup) (int64, error) {
	var restored int64
	for _, cmd := range b.OpaqueCommands() {
		before, had := s.node.FSM().Opaque(cmd.GetDatabase())
		after, err := propose(ctx, s, fsm.ProposeMakeOpaque, cmd)
		if err != nil {
			return restored, err
		}
		if !had || len(after.Collections) != len(before.Collections) || after.Numeric != before.Numeric {
			restored++
		}
	}
	return restored, nil
}
