package fsm

import raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"

// minClusterSecret is the shortest cluster secret accepted: 128 bits.
const minClusterSecret = 16

// applySetClusterSecret sets the cluster secret unless one is set: the first proposal wins,
// so two leaders in a row that both found none agree on the first one's.
func (m *members) applySetClusterSecret(r *raftv1.SetClusterSecret) any {
	if len(m.clusterSecret) > 0 {
		return nil
	}
	if len(r.GetSecret()) < minClusterSecret {
		return ErrInvalidSecret
	}
	m.clusterSecret = append([]byte(nil), r.GetSecret()...)
	return nil
}
