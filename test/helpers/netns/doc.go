// Package netns runs a test's processes on hosts of their own: each host is a Linux network
// namespace with one address, linked to every other host and to the test's own namespace by
// veth pairs, and Cut drops every packet in and out of one host (nftables inside its
// namespace), both ways, until Heal. A process started through Command listens and dials from
// its host; a test reaches every host from its own namespace, and dials from inside a host with
// Dialer, as a client beside that host would.
//
// It is how a test partitions real processes on one machine: a process cut off this way keeps
// running and keeps its sockets, its peers and its clients see their packets vanish, and no
// route or rule outside the test's namespaces changes but the addresses of the test's own veth
// ends. The addresses come from 198.18.0.0/15, which RFC 2544 sets aside for tests and nothing
// routes. It needs root, iproute2's ip and nftables' nft (Need).
package netns
