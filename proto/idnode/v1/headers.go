package idnodev1

// LeaderHeader is the response header in which a node names the gRPC address of the cluster's
// leader (as the leader registered it). It is part of the API, beside the messages: the node
// sets it and the Go client reads it, so both take it from here.
const LeaderHeader = "idnode-leader"
