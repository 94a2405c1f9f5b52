package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/internal/backupcrypt"
	"github.com/idnode/idnode/internal/version"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

func init() {
	commands = append(commands,
		command{name: "version", args: "", summary: "print idctl's version (idctl status shows the nodes')",
			maxArgs: 0, flags: versionCmd, scope: scopeLocal},
		command{name: "status", args: "[--consistent]", summary: "the cluster's nodes: tag, addresses, role, term, commit index, reachable",
			maxArgs: 0, flags: statusCmd},
		command{name: "next", args: "<request> [-n N] | --numeric [-n N] [--encoding decimal|base62|crockford]", summary: "IDs for a request string: 'orders|' identity, 'users/' server-side, '' GUID, else semantic; --numeric: 64-bit numeric IDs",
			minArgs: 0, maxArgs: 1, flags: nextCmd, scope: scopeDatabase},
		command{name: "identities", args: "[--prefix p]", summary: "every identity counter and its value (linearizable)",
			maxArgs: 0, flags: identitiesCmd, scope: scopeDatabase},
		command{name: "seed", args: "<name> <value> [--force]", summary: "raise an identity counter to value (--force: set it exactly; admin)",
			minArgs: 2, maxArgs: 2, flags: seedCmd, scope: scopeDatabase},
		command{name: "hilo next", args: "<tag>", summary: "reserve a HiLo range for tag",
			minArgs: 1, maxArgs: 1, flags: hiloNextCmd, scope: scopeDatabase},
		command{name: "hilo return", args: "<tag> <end> <last> <grant-id>", summary: "give back the unused tail (last, end] of tag's newest range, granted as grant-id (hilo next prints it)",
			minArgs: 4, maxArgs: 4, flags: hiloReturnCmd, scope: scopeDatabase},
		command{name: "hilo seed", args: "<tag> <max>", summary: "raise tag's HiLo Max so the next range starts above max, never lower (with API keys: an admin key)",
			minArgs: 2, maxArgs: 2, flags: hiloSeedCmd, scope: scopeDatabase},
		command{name: "hilo list", args: "[--prefix p]", summary: "the HiLo tags: Max, floor, and each node's pool (reserved, left, target, last top-up)",
			maxArgs: 0, flags: hiloListCmd, scope: scopeDatabase},
		command{name: "whoami", args: "", summary: "what the node makes of your credentials: admin and by what right, your API key and role",
			maxArgs: 0, flags: whoamiCmd, scope: scopeDatabase},
		command{name: "node add", args: "<tag|-> --raft-addr h:p --grpc-addr h:p", summary: "register a node and make it a Raft member; - lets the cluster pick the tag (admin)",
			minArgs: 1, maxArgs: 1, flags: nodeAddCmd},
		command{name: "node remove", args: "<tag>", summary: "remove a node; its tag is retired for ever (admin)",
			minArgs: 1, maxArgs: 1, flags: nodeRemoveCmd},
		command{name: "node promote", args: "<tag>", summary: "make a non-voter a voter: finishes a join that did not (admin)",
			minArgs: 1, maxArgs: 1, flags: nodePromoteCmd},
		command{name: "leader transfer", args: "[tag]", summary: "hand leadership to tag, or to any up-to-date voter (admin)",
			maxArgs: 1, flags: leaderTransferCmd},
		command{name: "backup", args: "<file|-> [--passphrase-file F]", summary: "write a consistent backup of the cluster's state to file, encrypted with a passphrase if given (admin)",
			minArgs: 1, maxArgs: 1, flags: backupCmd, scope: scopeDatabase},
		command{name: "restore", args: "<file|-|name|latest> [--target T] [--ahead N|P%|N+P%] [--hilo-ahead M] [--passphrase-file F]", summary: "raise this cluster's counters to a backup's (--ahead: that far above) and retire its node tags; --target: a scheduled one (admin)",
			minArgs: 1, maxArgs: 1, flags: restoreCmd},
		command{name: "claim", args: "<id>... [--owner o]", summary: "claim semantic IDs cluster-wide, all or nothing; ALREADY_EXISTS names a taken one and its owner",
			minArgs: 1, maxArgs: maxIDsPerCall, flags: claimCmd, scope: scopeDatabase},
		command{name: "release", args: "<id>... [--owner o]", summary: "give claimed IDs back, all or nothing (--owner: only if they are o's)",
			minArgs: 1, maxArgs: maxIDsPerCall, flags: releaseCmd, scope: scopeDatabase},
		command{name: "claims", args: "[id...] [--prefix p]", summary: "look claimed IDs up, or list the claims (linearizable)",
			maxArgs: maxIDsPerCall, flags: claimsCmd, scope: scopeDatabase},
		command{name: "db create", args: "<name> [--max-identities N] [--max-calls-per-second R] [--max-claims N]", summary: "create a database: its own identities, HiLo tags and claims (admin)",
			minArgs: 1, maxArgs: 1, flags: dbCreateCmd},
		command{name: "db delete", args: "<name> [--force]", summary: "delete a database; --force even with counters, which stay as floors (admin)",
			minArgs: 1, maxArgs: 1, flags: dbDeleteCmd},
		command{name: "db list", args: "", summary: "the databases, with their numbers of identities and HiLo tags",
			maxArgs: 0, flags: dbListCmd},
		command{name: "key create", args: "--db name --role reader|writer|admin", summary: "make an API key for one database; prints it, once (admin)",
			maxArgs: 0, flags: keyCreateCmd, scope: scopeDatabase},
		command{name: "key delete", args: "<id>", summary: "delete an API key (admin)",
			minArgs: 1, maxArgs: 1, flags: keyDeleteCmd},
		command{name: "key list", args: "", summary: "the API keys: id, database, role (admin)",
			maxArgs: 0, flags: keyListCmd},
	)
}

var jsonOut = protojson.MarshalOptions{Multiline: true, Indent: "  ", UseProtoNames: true, EmitUnpopulated: true}

func printProto(w io.Writer, m proto.Message) error {
	b, err := jsonOut.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printRows prints a listing. With --json it prints a JSON array of the rows (empty, not null,
// when there are none); otherwise it prints a table, as printColumns does.
func printRows[R any](e *env, rows []R, header string, line func(R) string) error {
	if e.g.json {
		if rows == nil {
			rows = []R{}
		}
		return printJSON(e.stdout, rows)
	}
	return printColumns(e.stdout, rows, header, line)
}

// printColumns prints rows as a table under header. Each row is one line that line formats,
// with its columns separated by tabs.
func printColumns[R any](w io.Writer, rows []R, header string, line func(R) string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, line(r))
	}
	return tw.Flush()
}

func versionCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, _ []string) error {
		if e.g.json {
			return printJSON(e.stdout, version.Get())
		}
		fmt.Fprintln(e.stdout, "idctl", version.Get())
		return nil
	}
}

// --- status

type nodeRow struct {
	Tag          string `json:"tag"`
	ID           string `json:"id"`
	GRPCAddress  string `json:"grpc_address"`
	RaftAddress  string `json:"raft_address"`
	Role         string `json:"role"`
	Voter        bool   `json:"voter"`
	Reachable    bool   `json:"reachable"`
	Term         uint64 `json:"term,omitempty"`
	CommitIndex  uint64 `json:"commit_index,omitempty"`
	AppliedIndex uint64 `json:"applied_index,omitempty"`
	Answered     bool   `json:"answered"` // this node's own term and indexes were read from it
	// StorageFault is why the node cannot write its Raft log (its own answer), if it cannot.
	StorageFault string `json:"storage_fault,omitempty"`
	// Version is the node's build, as it said itself or answered the probe ("" if unknown).
	Version string `json:"version"`
	// JoinUnfinished reports that the node joined with --join and is still a non-voter;
	// idctl node promote or idctl node remove ends that.
	JoinUnfinished bool `json:"join_unfinished,omitempty"`
	// DivergedAtIndex is the replica check's mark at which the cluster fenced the node for a
	// state that differs from the majority's; absent when it is not fenced.
	DivergedAtIndex uint64 `json:"diverged_at_index,omitempty"`
	// ClockOffsetSeconds is the node's clock minus the leader's, as the node last measured it;
	// absent before its first measurement or when nobody could say.
	ClockOffsetSeconds *float64 `json:"clock_offset_seconds,omitempty"`
	// Headroom is how far the node is from the limits that would make it refuse, as it said
	// itself (absent when idctl could not reach it, or from older nodes).
	Headroom *headroomOut `json:"headroom,omitempty"`
}

type statusOut struct {
	Leader     string    `json:"leader"`
	AnsweredBy string    `json:"answered_by"`
	Nodes      []nodeRow `json:"nodes"`
	// ClusterVersion is the cluster version as the answering node has it (absent from nodes
	// older than cluster versions).
	ClusterVersion *clusterVersionOut `json:"cluster_version,omitempty"`
	// ReplicaCheck is the leader's last comparison of the members' state digests, in one
	// line (absent before the leader's first, or from older nodes).
	ReplicaCheck string `json:"replica_check,omitempty"`
}

type clusterVersionOut struct {
	Finalised uint32 `json:"finalised"`
	Effective uint32 `json:"effective"`
	Notice    string `json:"notice,omitempty"`
}

func statusCmd(fs *flag.FlagSet) func(*env, []string) error {
	consistent := fs.Bool("consistent", false, "ask the leader, after it confirmed its leadership with a majority (fails without a quorum)")
	return func(e *env, _ []string) error {
		c, err := e.client()
		if err != nil {
			return err
		}
		var st *idnodev1.StatusResponse
		if err := c.call(e.ctx, "Status", func(ctx context.Context) error {
			st, err = c.c.Admin().Status(ctx, *consistent)
			return err
		}); err != nil {
			return err
		}
		self := c.selfReports(e.ctx, st)
		out := statusOut{Leader: st.GetLeader(), AnsweredBy: st.GetSelf()}
		if cv := st.GetClusterVersion(); cv != nil {
			out.ClusterVersion = &clusterVersionOut{Finalised: cv.GetFinalised(), Effective: cv.GetEffective(), Notice: versionNotice(cv)}
		}
		for _, n := range st.GetNodes() {
			row := nodeRow{Tag: n.GetTag(), ID: n.GetId(), GRPCAddress: n.GetGrpcAddress(), RaftAddress: n.GetRaftAddress(),
				Role: n.GetState(), Voter: n.GetVoter(), Reachable: n.GetReachable(), Version: n.GetVersion(), JoinUnfinished: n.GetJoinUnfinished(),
				DivergedAtIndex: n.GetDivergedAtIndex()}
			row.clockOffset(n)
			if own, ok := self[n.GetTag()]; ok {
				row.Term, row.CommitIndex, row.AppliedIndex, row.Answered = own.GetTerm(), own.GetCommitIndex(), own.GetAppliedIndex(), true
				row.StorageFault = own.GetStorageFault()
				row.Headroom = headroomOf(own.GetHeadroom(), time.Now())
				for _, m := range own.GetNodes() {
					if m.GetTag() == own.GetSelf() && m.GetVersion() != "" {
						row.Version = m.GetVersion()
					}
					if m.GetTag() == own.GetSelf() {
						row.clockOffset(m)
					}
				}
			}
			out.Nodes = append(out.Nodes, row)
		}
		rc := self[st.GetLeader()].GetReplicaCheck()
		if rc == nil {
			rc = st.GetReplicaCheck()
		}
		out.ReplicaCheck = replicaCheckLine(rc)
		if e.g.json {
			return printJSON(e.stdout, out)
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TAG\tID\tGRPC\tRAFT\tROLE\tVOTER\tTERM\tCOMMIT\tAPPLIED\tREACHABLE\tCLOCK\tVERSION")
		for _, r := range out.Nodes {
			term, commit, applied := "-", "-", "-"
			if r.Answered {
				term, commit, applied = fmt.Sprint(r.Term), fmt.Sprint(r.CommitIndex), fmt.Sprint(r.AppliedIndex)
			}
			clock := "-" // the version, which has spaces, stays last
			if r.ClockOffsetSeconds != nil {
				clock = fmt.Sprintf("%+.3fs", *r.ClockOffsetSeconds)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Tag, dash(r.ID), dash(r.GRPCAddress), dash(r.RaftAddress), r.Role,
				yesNo(r.Voter), term, commit, applied, yesNo(r.Reachable), clock, dash(r.Version))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if cv := out.ClusterVersion; cv != nil && cv.Notice != "" {
			fmt.Fprintln(e.stdout, cv.Notice)
		}
		if out.ReplicaCheck != "" {
			fmt.Fprintln(e.stdout, out.ReplicaCheck)
		}
		for _, r := range out.Nodes {
			if r.StorageFault != "" {
				fmt.Fprintf(e.stdout, "node %s: %s\n", r.Tag, r.StorageFault)
			}
			if r.DivergedAtIndex > 0 {
				fmt.Fprintf(e.stdout, "node %s: fenced, its state differed from the majority's at the replica check of index %d; it refuses calls until rebuilt (docs/replica-checks.md)\n",
					r.Tag, r.DivergedAtIndex)
			}
			if r.JoinUnfinished {
				fmt.Fprintf(e.stdout, "node %s: its join did not finish: it serves but does not vote; finish it with idctl node promote %s, or undo it with idctl node remove %s\n",
					r.Tag, r.Tag, r.Tag)
			}
		}
		for _, r := range out.Nodes {
			if r.Headroom != nil {
				if err := printHeadroom(e.stdout, r.Tag, r.Headroom); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// clockOffset takes the clock offset n says the node measured, if it says one: the node's own
// answer, read last, wins over what the answering node's probe heard.
func (r *nodeRow) clockOffset(n *idnodev1.NodeStatus) {
	if n.GetClockOffsetMeasured() {
		offset := n.GetClockOffsetSeconds()
		r.ClockOffsetSeconds = &offset
	}
}

// selfReports asks every node idctl can reach (the --addr list and each node's registered
// gRPC address) for its own term and indexes, in parallel, briefly. Nodes it cannot reach
// (down, or on a network idctl is not on) are left out.
func (s *session) selfReports(ctx context.Context, st *idnodev1.StatusResponse) map[string]*idnodev1.StatusResponse {
	addrs := append([]string(nil), s.addrs...)
	for _, n := range st.GetNodes() {
		if a := n.GetGrpcAddress(); a != "" && !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	var mu sync.Mutex
	out := map[string]*idnodev1.StatusResponse{}
	var wg sync.WaitGroup
	for _, addr := range addrs {
		node, err := s.node(ctx, addr)
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer node.Close(ctx)
			r, err := node.Admin().Status(ctx, false)
			if err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if _, dup := out[r.GetSelf()]; !dup {
				out[r.GetSelf()] = r
			}
		}()
	}
	wg.Wait()
	return out
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// --- IDs

func nextCmd(fs *flag.FlagSet) func(*env, []string) error {
	n := fs.Int64("n", 1, "how many IDs")
	requestID := fs.String("request-id", "", "request id that makes a retry return the same identities (default: a random one, so idctl's own retries on another node burn nothing)")
	v4 := fs.Bool("guid-v4", false, "for a GUID request (''), a UUIDv4 instead of a v7")
	numeric := fs.Bool("numeric", false, "numeric IDs (time | worker | sequence), minted by the node under its worker lease; no request string")
	encoding := fs.String("encoding", "decimal", "with --numeric: decimal, base62 (11 characters) or crockford (13)")
	return func(e *env, args []string) error {
		if *n < 1 {
			return usagef("-n must be at least 1")
		}
		if *numeric {
			if len(args) != 0 {
				return usagef("--numeric takes no request string")
			}
			return e.nextNumeric(*n, *encoding)
		}
		if len(args) != 1 {
			return usagef("next takes one request string ('' for a GUID), or --numeric")
		}
		req := &idnodev1.GenerateRequest{Id: args[0], Count: *n, RequestId: *requestID}
		if *v4 {
			req.GuidVersion = idnodev1.GuidVersion_GUID_VERSION_V4
		}
		return answered(e, "Generate", func(ctx context.Context, c *client.Client) (*idnodev1.GenerateResponse, error) {
			return c.GenerateRaw(ctx, req)
		}, func(w io.Writer, resp *idnodev1.GenerateResponse) error {
			for _, id := range resp.GetIds() {
				fmt.Fprintln(w, id)
			}
			return nil
		})
	}
}

func identitiesCmd(fs *flag.FlagSet) func(*env, []string) error {
	prefix := fs.String("prefix", "", "only names starting with this (case-insensitive)")
	pageSize := fs.Int("page-size", 1000, "names per call")
	return func(e *env, _ []string) error {
		if *pageSize < 1 {
			return usagef("--page-size must be at least 1")
		}
		type identity struct {
			Name  string `json:"name"`
			Value int64  `json:"value"`
		}
		var all []identity
		if err := allPages(e, "ListIdentities", func(ctx context.Context, c *client.Client, token string) (string, int, error) {
			page, err := c.ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{Prefix: *prefix, PageSize: int32(*pageSize), PageToken: token})
			for _, id := range page.GetIdentities() {
				all = append(all, identity{id.GetName(), id.GetValue()})
			}
			return page.GetNextPageToken(), len(page.GetIdentities()), err
		}); err != nil {
			return err
		}
		return printRows(e, all, "NAME\tVALUE", func(id identity) string { return fmt.Sprintf("%s\t%d", id.Name, id.Value) })
	}
}

func seedCmd(fs *flag.FlagSet) func(*env, []string) error {
	force := fs.Bool("force", false, "set the counter to exactly value, even lower (an admin call)")
	return func(e *env, args []string) error {
		value, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil {
			return usagef("value %q is not a whole number", args[1])
		}
		return answered(e, "SeedIdentity", func(ctx context.Context, c *client.Client) (*idnodev1.SeedIdentityResponse, error) {
			v, err := c.SeedIdentity(ctx, args[0], value, *force)
			return &idnodev1.SeedIdentityResponse{Value: v}, err
		}, func(w io.Writer, resp *idnodev1.SeedIdentityResponse) error {
			_, err := fmt.Fprintf(w, "%s = %d (next identity %d)\n", args[0], resp.GetValue(), resp.GetValue()+1)
			return err
		})
	}
}

func hiloNextCmd(fs *flag.FlagSet) func(*env, []string) error {
	separator := fs.String("separator", "", "separator for the prefix (default: the cluster's)")
	lastMax := fs.Int64("last-max", 0, "the range starts above this")
	requestID := fs.String("request-id", "", "request id that makes a retry through the same node return the same range (default: a random one)")
	return func(e *env, args []string) error {
		req := &idnodev1.NextHiLoRequest{Tag: args[0], Separator: *separator, LastMax: *lastMax, RequestId: *requestID}
		return answered(e, "NextHiLo", func(ctx context.Context, c *client.Client) (*idnodev1.NextHiLoResponse, error) {
			return c.NextHiLo(ctx, req)
		}, func(w io.Writer, resp *idnodev1.NextHiLoResponse) error {
			fmt.Fprintf(w, "%s%d-%s … %s%d-%s (low %d, high %d, %d numbers, granted by %s as %s)\n",
				resp.GetPrefix(), resp.GetLow(), resp.GetServerTag(), resp.GetPrefix(), resp.GetHigh(), resp.GetServerTag(),
				resp.GetLow(), resp.GetHigh(), resp.GetLastSize(), resp.GetServerTag(), resp.GetGrantId())
			return nil
		})
	}
}

func hiloReturnCmd(fs *flag.FlagSet) func(*env, []string) error {
	requestID := fs.String("request-id", "", "request id that makes a retry through the same node answer as the first return did (default: a random one)")
	return func(e *env, args []string) error {
		end, err1 := strconv.ParseInt(args[1], 10, 64)
		last, err2 := strconv.ParseInt(args[2], 10, 64)
		if err1 != nil || err2 != nil {
			return usagef("end %q and last %q must be whole numbers", args[1], args[2])
		}
		var returned bool
		if err := e.call("ReturnHiLo", func(ctx context.Context, c *client.Client) (err error) {
			returned, err = c.ReturnHiLo(ctx, &idnodev1.ReturnHiLoRequest{Tag: args[0], End: end, Last: last, GrantId: args[3], RequestId: *requestID})
			return err
		}); err != nil {
			return err
		}
		if e.g.json {
			return printJSON(e.stdout, map[string]any{"tag": args[0], "end": end, "last": last, "returned": returned})
		}
		if !returned {
			fmt.Fprintf(e.stdout, "nothing returned: %s's range up to %d is not the newest any more, or came back already (its unused numbers stay a gap)\n", args[0], end)
			return nil
		}
		fmt.Fprintf(e.stdout, "returned %s (%d, %d]\n", args[0], last, end)
		return nil
	}
}

func hiloSeedCmd(fs *flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		floor, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil {
			return usagef("max %q is not a whole number", args[1])
		}
		return answered(e, "SeedHiLo", func(ctx context.Context, c *client.Client) (*idnodev1.SeedHiLoResponse, error) {
			max, err := c.SeedHiLo(ctx, args[0], floor)
			return &idnodev1.SeedHiLoResponse{Max: max}, err
		}, func(w io.Writer, resp *idnodev1.SeedHiLoResponse) error {
			_, err := fmt.Fprintf(w, "%s: HiLo Max = %d (the next range starts at %d)\n", args[0], resp.GetMax(), resp.GetMax()+1)
			return err
		})
	}
}

func hiloListCmd(fs *flag.FlagSet) func(*env, []string) error {
	prefix := fs.String("prefix", "", "list only tags starting with this (case-insensitive)")
	pageSize := fs.Int("page-size", 1000, "tags per call")
	return func(e *env, _ []string) error {
		if *pageSize < 1 {
			return usagef("--page-size must be at least 1")
		}
		all := &idnodev1.ListHiLoResponse{}
		if err := allPages(e, "ListHiLo", func(ctx context.Context, c *client.Client, token string) (string, int, error) {
			page, err := c.ListHiLo(ctx, &idnodev1.ListHiLoRequest{Prefix: *prefix, PageSize: int32(*pageSize), PageToken: token})
			all.Tags = append(all.Tags, page.GetTags()...)
			return page.GetNextPageToken(), len(page.GetTags()), err
		}); err != nil {
			return err
		}
		if e.g.json {
			return printProto(e.stdout, all)
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TAG\tMAX\tFLOOR\tNODE\tRESERVED\tLEFT\tTARGET\tTOPPED UP")
		for _, t := range all.GetTags() {
			if len(t.GetPools()) == 0 {
				fmt.Fprintf(tw, "%s\t%d\t%d\t-\t-\t-\t-\t-\n", t.GetTag(), t.GetMax(), t.GetFloor())
			}
			for _, p := range t.GetPools() {
				left, target, when := "?", "?", "?" // the node did not answer
				if p.GetAnswered() {
					left, target, when = fmt.Sprint(p.GetRemaining()), fmt.Sprint(p.GetTarget()), "-"
					if ms := p.GetToppedUpMs(); ms > 0 {
						when = time.UnixMilli(ms).UTC().Format(time.RFC3339)
					}
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%s\t%s\t%s\n", t.GetTag(), t.GetMax(), t.GetFloor(), p.GetNode(), p.GetReserved(), left, target, when)
			}
		}
		return tw.Flush()
	}
}

func whoamiCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, _ []string) error {
		return answered(e, "WhoAmI", func(ctx context.Context, c *client.Client) (*idnodev1.WhoAmIResponse, error) {
			return c.Admin().WhoAmI(ctx)
		}, func(w io.Writer, who *idnodev1.WhoAmIResponse) error {
			admin := "no"
			if who.GetAdmin() != "" {
				admin = "yes, by " + who.GetAdmin()
			}
			key := "none"
			if k := who.GetKey(); k != nil {
				key = fmt.Sprintf("%s (%s of database %s)", k.GetId(), k.GetRole(), k.GetDatabase())
			}
			fmt.Fprintf(w, "admin: %s\nAPI key: %s\nkeys required: %s\n", admin, key, yesNo(who.GetKeysRequired()))
			return nil
		})
	}
}

// --- membership

func nodeAddCmd(fs *flag.FlagSet) func(*env, []string) error {
	raftAddr := fs.String("raft-addr", "", "host:port the other nodes reach the new node's Raft at (required)")
	grpcAddr := fs.String("grpc-addr", "", "host:port of the new node's gRPC (required)")
	id := fs.String("id", "", "Raft server id (default: the tag)")
	nonVoter := fs.Bool("non-voter", false, "add as a non-voter")
	return func(e *env, args []string) error {
		if *raftAddr == "" || *grpcAddr == "" {
			return usagef("node add needs --raft-addr and --grpc-addr")
		}
		tag := args[0]
		if tag == "-" {
			tag = ""
		}
		return answered(e, "AddNode", func(ctx context.Context, c *client.Client) (*idnodev1.AddNodeResponse, error) {
			return c.Admin().AddNode(ctx, &idnodev1.AddNodeRequest{Tag: tag, RaftAddress: *raftAddr, GrpcAddress: *grpcAddr, Id: *id, NonVoter: *nonVoter})
		}, func(w io.Writer, resp *idnodev1.AddNodeResponse) error {
			n := resp.GetNode()
			fmt.Fprintf(w, "added node %s (raft %s, grpc %s, voter %s)\n", n.GetTag(), n.GetRaftAddress(), n.GetGrpcAddress(), yesNo(n.GetVoter()))
			return nil
		})
	}
}

func nodeRemoveCmd(fs *flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		return e.change("RemoveNode", func(ctx context.Context, c *client.Client) error {
			return c.Admin().RemoveNode(ctx, args[0])
		}, "removed", args[0], fmt.Sprintf("removed node %s; its tag is retired for ever", args[0]))
	}
}

// nodePromoteCmd makes a registered non-voter a voter: AddNode again with the node's own
// tag, ID and addresses, as a voter (AddNode changes an existing member's suffrage).
func nodePromoteCmd(fs *flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		var st *idnodev1.StatusResponse
		if err := e.call("Status", func(ctx context.Context, c *client.Client) (err error) {
			st, err = c.Admin().Status(ctx, true)
			return err
		}); err != nil {
			return err
		}
		i := slices.IndexFunc(st.GetNodes(), func(n *idnodev1.NodeStatus) bool { return n.GetTag() == args[0] })
		if i < 0 {
			return fmt.Errorf("no node has tag %s (see idctl status)", args[0])
		}
		n := st.GetNodes()[i]
		if n.GetVoter() {
			fmt.Fprintf(e.stdout, "node %s is a voter already\n", n.GetTag())
			return nil
		}
		return answered(e, "AddNode", func(ctx context.Context, c *client.Client) (*idnodev1.AddNodeResponse, error) {
			return c.Admin().AddNode(ctx, &idnodev1.AddNodeRequest{Tag: n.GetTag(), Id: n.GetId(), RaftAddress: n.GetRaftAddress(), GrpcAddress: n.GetGrpcAddress()})
		}, func(w io.Writer, resp *idnodev1.AddNodeResponse) error {
			fmt.Fprintf(w, "node %s is a voter now\n", resp.GetNode().GetTag())
			return nil
		})
	}
}

func leaderTransferCmd(fs *flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		tag := ""
		if len(args) == 1 {
			tag = args[0]
		}
		return answered(e, "TransferLeadership", func(ctx context.Context, c *client.Client) (*idnodev1.TransferLeadershipResponse, error) {
			leader, err := c.Admin().TransferLeadership(ctx, tag)
			return &idnodev1.TransferLeadershipResponse{Leader: leader}, err
		}, func(w io.Writer, resp *idnodev1.TransferLeadershipResponse) error {
			_, err := fmt.Fprintf(w, "leader: %s\n", resp.GetLeader())
			return err
		})
	}
}

// --- backup and restore

func backupCmd(fs *flag.FlagSet) func(*env, []string) error {
	var pp passphraseFlag
	pp.register(fs, "encrypt the backup with the passphrase in this `file`, its first line")
	return func(e *env, args []string) error {
		path := args[0]
		pass, err := pp.get(e)
		if err != nil {
			return err
		}
		out, err := createBackupOut(e, path)
		if err != nil {
			return err
		}
		defer out.discard() // after commit this finds nothing
		var (
			w   io.Writer = out
			enc *backupcrypt.Writer
		)
		if pass.bytes != nil {
			if enc, err = backupcrypt.NewWriter(out, pass.bytes, backupcrypt.DefaultParams); err != nil {
				return fmt.Errorf("backup file: %w", err)
			}
			w = enc
		}
		keys := startKeyScan()
		defer keys.finish()
		var info client.BackupInfo
		if err := e.call("Backup", func(ctx context.Context, c *client.Client) (err error) {
			info, err = c.Admin().Backup(ctx, io.MultiWriter(w, keys))
			return err
		}); err != nil {
			return err
		}
		holdsKeys, scanErr := keys.finish()
		if enc != nil {
			if err := enc.Close(); err != nil {
				return fmt.Errorf("backup file: %w", err)
			}
		}
		if err := out.commit(); err != nil {
			return err
		}
		report := e.stdout
		if path == "-" {
			report = e.stderr
		}
		note := secretNote(path, holdsKeys, scanErr, enc != nil)
		if e.g.json {
			if holdsKeys == nil {
				holdsKeys = []string{}
			}
			return printJSON(report, map[string]any{"file": path, "bytes": info.Bytes, "leader": info.Leader, "index": info.Index,
				"encrypted": enc != nil, "holds_keys_of": holdsKeys, "secret": note != ""})
		}
		encrypted := ""
		if enc != nil {
			encrypted = ", encrypted with the passphrase from " + pass.from
		}
		fmt.Fprintf(report, "backup of raft index %d from leader %s: %d bytes written to %s%s\n", info.Index, info.Leader, info.Bytes, path, encrypted)
		if note != "" {
			fmt.Fprintln(report, note)
		}
		return nil
	}
}

// namedWriter names the file in its write errors.
type namedWriter struct {
	w    io.Writer
	path string
}

func (n namedWriter) Write(p []byte) (int, error) {
	k, err := n.w.Write(p)
	if err != nil {
		err = fmt.Errorf("write %s: %w", n.path, err)
	}
	return k, err
}

func restoreCmd(fs *flag.FlagSet) func(*env, []string) error {
	var ahead, hiloAhead marginFlag
	fs.Var(&ahead, "ahead", "set identity counters and HiLo maxima this `margin` above the backup's, past what its cluster issued since: N, P% of each, or N+P% (unset: the backup's peak rate x its age x 2; 0: none)")
	fs.Var(&hiloAhead, "hilo-ahead", "the `margin` for HiLo maxima, if not --ahead's")
	var pp passphraseFlag
	pp.register(fs, "the passphrase of an encrypted backup is in this `file`, its first line")
	target := registerTarget(fs, "restore from this target of scheduled backups, dir:/path or s3://bucket/prefix (the node's --backup-target), the argument naming a backup in it or "+latestBackup+"; --s3-* read the node's IDNODE_BACKUP_S3_*")
	return func(e *env, args []string) error {
		pass, err := pp.get(e)
		if err != nil {
			return err
		}
		backup, err := openRestoreSource(e, fs, target, args[0], pass)
		if err != nil {
			return err
		}
		defer backup.close()
		margin := restoreMargin(ahead.margin, hiloAhead.margin)
		return answered(e, "Restore", func(ctx context.Context, c *client.Client) (*idnodev1.RestoreResponse, error) {
			return c.Admin().Restore(ctx, backup, client.RestoreAhead(margin))
		}, func(w io.Writer, resp *idnodev1.RestoreResponse) error {
			fmt.Fprintf(w, "restored %s: %d identities (%d raised), %d HiLo tags (%d raised), %d node tags (%d newly retired), %d claims (%d new here), %d series (%d journal entries appended), %d numeric workers (%d raised)\n",
				backup.what, resp.GetIdentities(), resp.GetIdentitiesRaised(), resp.GetHiloTags(), resp.GetHiloRaised(), resp.GetTags(), resp.GetTagsRetired(),
				resp.GetClaims(), resp.GetClaimsRestored(), resp.GetSeries(), resp.GetSeriesEntriesRestored(), resp.GetWorkers(), resp.GetWorkersRaised())
			if err := restoreKeys(w, resp); err != nil {
				return err
			}
			return restoreRisks(w, resp)
		})
	}
}
