package docid

const maxNodeTagLength = 4

// reservedNodeTag is what RavenDB writes in change vectors for cluster-wide entries; keeping it
// free means no node tag can be mistaken for the cluster.
const reservedNodeTag = "RAFT"

// ValidateNodeTag checks a node tag: 1–4 upper-case letters A–Z, not "RAFT". Tags end every
// server-side and HiLo ID, so anything else could clash with the separator or the digits before.
func ValidateNodeTag(tag string) error {
	switch {
	case tag == "":
		return invalid("node tag is empty", tag)
	case len(tag) > maxNodeTagLength:
		return invalid("node tag is longer than 4 letters", tag)
	case tag == reservedNodeTag:
		return invalid("node tag RAFT is reserved", tag)
	}
	for i := 0; i < len(tag); i++ {
		if tag[i] < 'A' || tag[i] > 'Z' {
			return invalid("node tag must be upper-case letters A-Z", tag)
		}
	}
	return nil
}
