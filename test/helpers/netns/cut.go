//go:build linux

package netns

// cutTable is the nftables table that Cut puts in a host's namespace: it drops every packet
// that comes in or goes out on a link (its own loopback excepted), so each peer and client
// sees its packets vanish, as across a partition, rather than a refusal.
const cutTable = `table inet idnode_cut {
	chain in { type filter hook input priority 0; policy accept; iifname != "lo" drop; }
	chain out { type filter hook output priority 0; policy accept; oifname != "lo" drop; }
}
`

// Cut cuts host h off from every other host and from the test, both ways, at once. Its
// processes keep running and their connections stay open, carrying nothing.
func (n *Net) Cut(h string) {
	n.t.Helper()
	n.runInput(cutTable, n.ip, "netns", "exec", n.name(h), n.nft, "-f", "-")
}

// Heal undoes Cut: the packets flow again, and connections that outlived the cut carry on.
func (n *Net) Heal(h string) {
	n.t.Helper()
	n.run(n.ip, "netns", "exec", n.name(h), n.nft, "delete", "table", "inet", "idnode_cut")
}
