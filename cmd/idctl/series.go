package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/internal/filesum"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Fiscal series: create, issue, void, and what an auditor reads (journal, export,
// gaps, verify).

func init() {
	commands = append(commands,
		command{name: "series create", args: "<name> --format F [--period none|year|month] [--policy gapless|gaps-allowed-journaled]",
			summary: "create a fiscal series, e.g. --format 'INV-{year}-{n:06}' --period year (with API keys: an admin key)",
			minArgs: 1, maxArgs: 1, flags: seriesCreateCmd, scope: scopeDatabase},
		command{name: "series list", args: "", summary: "the series of the database: format, period, policy, last number, entries",
			maxArgs: 0, flags: seriesListCmd, scope: scopeDatabase},
		command{name: "series issue", args: "<series> --request-id R [--document FILE|--document-hash HEX] [--field k=v]...",
			summary: "issue the next number to a document; the same request id again answers the same number",
			minArgs: 1, maxArgs: 1, flags: seriesIssueCmd, scope: scopeDatabase},
		command{name: "series void", args: "<series> <number> --reason R [--period P] [--correcting DOC]",
			summary: "void an issued number, or (gaps-allowed-journaled) skip the next one, with a reason",
			minArgs: 2, maxArgs: 2, flags: seriesVoidCmd, scope: scopeDatabase},
		command{name: "series journal", args: "<series> [--from SEQ] [--to SEQ]", summary: "the series' journal entries, in order",
			minArgs: 1, maxArgs: 1, flags: seriesJournalCmd, scope: scopeDatabase},
		command{name: "series export", args: "<series> [--as csv|jsonl] [--out FILE]", summary: "write the whole journal for an auditor: CSV or JSON lines",
			minArgs: 1, maxArgs: 1, flags: seriesExportCmd, scope: scopeDatabase},
		command{name: "series gaps", args: "<series>", summary: "every voided number, with its reason and who voided it",
			minArgs: 1, maxArgs: 1, flags: seriesGapsCmd, scope: scopeDatabase},
		command{name: "series verify", args: "<series>", summary: "recompute the series' hash chain and numbering; exits 1 naming the first break",
			minArgs: 1, maxArgs: 1, flags: seriesVerifyCmd, scope: scopeDatabase},
	)
}

func seriesCreateCmd(fs *flag.FlagSet) func(*env, []string) error {
	format := fs.String("format", "", "how a number is printed: text and {year}, {month}, {n} or {n:0W}, e.g. INV-{year}-{n:06}")
	period := fs.String("period", "none", "when numbering restarts at 1: none, year or month (UTC)")
	policy := fs.String("policy", "gapless", "gapless, or gaps-allowed-journaled (a number may be skipped by voiding it)")
	return func(e *env, args []string) error {
		req := &idnodev1.CreateSeriesRequest{Name: args[0], Format: *format}
		var ok bool
		if req.Period, ok = seriesPeriods[*period]; !ok {
			return usagef("--period must be none, year or month, not %q", *period)
		}
		if req.Policy, ok = seriesPolicies[*policy]; !ok {
			return usagef("--policy must be gapless or gaps-allowed-journaled, not %q", *policy)
		}
		return answered(e, "CreateSeries", func(ctx context.Context, c *client.Client) (*idnodev1.Series, error) {
			return c.Series().Create(ctx, req)
		}, func(w io.Writer, s *idnodev1.Series) error {
			fmt.Fprintf(w, "created series %s: %s, period %s, %s\n", s.GetName(), s.GetFormat(), *period, *policy)
			return nil
		})
	}
}

var seriesPeriods = map[string]idnodev1.SeriesPeriod{
	"none": idnodev1.SeriesPeriod_SERIES_PERIOD_NONE, "year": idnodev1.SeriesPeriod_SERIES_PERIOD_YEAR, "month": idnodev1.SeriesPeriod_SERIES_PERIOD_MONTH,
}

var seriesPolicies = map[string]idnodev1.SeriesPolicy{
	"gapless": idnodev1.SeriesPolicy_SERIES_POLICY_GAPLESS, "gaps-allowed-journaled": idnodev1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED,
}

func seriesListCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, _ []string) error {
		var all []*idnodev1.Series
		if err := e.call("ListSeries", func(ctx context.Context, c *client.Client) (err error) {
			all, err = c.Series().List(ctx)
			return err
		}); err != nil {
			return err
		}
		if e.g.json {
			return printProto(e.stdout, &idnodev1.ListSeriesResponse{Series: all})
		}
		return printColumns(e.stdout, all, "SERIES\tFORMAT\tPERIOD\tPOLICY\tCURRENT\tLAST\tISSUED\tVOIDED", func(s *idnodev1.Series) string {
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d", s.GetName(), s.GetFormat(), periodName(s.GetPeriod()), policyName(s.GetPolicy()),
				s.GetCurrentPeriod(), s.GetLastNumber(), s.GetIssued(), s.GetVoided())
		})
	}
}

func seriesIssueCmd(fs *flag.FlagSet) func(*env, []string) error {
	requestID := fs.String("request-id", "", "required: the document's own id for this call; the same id again answers the same number")
	document := fs.String("document", "", "a file whose SHA-256 is recorded with the number")
	documentHash := fs.String("document-hash", "", "the document's hash, hex, instead of --document")
	var fields fieldFlags
	fs.Var(&fields, "field", "a field recorded with the number, key=value (repeatable, at most 16)")
	return func(e *env, args []string) error {
		if *requestID == "" {
			return usagef("--request-id is required: keep it with the document, so that a retry finds its number")
		}
		if *document != "" && *documentHash != "" {
			return usagef("give --document or --document-hash, not both")
		}
		req := &idnodev1.IssueRequest{Series: args[0], RequestId: *requestID, DocumentHash: *documentHash, Fields: fields}
		if *document != "" {
			sum, err := filesum.SHA256(*document)
			if err != nil {
				return err
			}
			req.DocumentHash = sum
		}
		return answered(e, "Issue", func(ctx context.Context, c *client.Client) (*idnodev1.SeriesEntry, error) {
			return c.Series().Issue(ctx, req)
		}, func(w io.Writer, entry *idnodev1.SeriesEntry) error {
			fmt.Fprintln(w, entry.GetId())
			return nil
		})
	}
}

// fieldFlags collects --field key=value.
type fieldFlags []*idnodev1.SeriesField

func (f *fieldFlags) String() string { return "" }

func (f *fieldFlags) Set(v string) error {
	key, value, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("a field is key=value, not %q", v)
	}
	*f = append(*f, &idnodev1.SeriesField{Key: key, Value: value})
	return nil
}

func seriesVoidCmd(fs *flag.FlagSet) func(*env, []string) error {
	why := fs.String("reason", "", "required: why the number is void")
	period := fs.String("period", "", "the number's period (2026, 2026-03) in a series with periods")
	correcting := fs.String("correcting", "", "the document that corrects it, e.g. the credit note's number")
	requestID := fs.String("request-id", "", "makes a retry answer the first void (idctl makes one when empty)")
	return func(e *env, args []string) error {
		number, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil || number < 1 {
			return usagef("the number must be a whole number from 1, not %q", args[1])
		}
		req := &idnodev1.VoidRequest{Series: args[0], Number: number, Period: *period, Reason: *why, Correcting: *correcting, RequestId: *requestID}
		return answered(e, "Void", func(ctx context.Context, c *client.Client) (*idnodev1.SeriesEntry, error) {
			return c.Series().Void(ctx, req)
		}, func(w io.Writer, entry *idnodev1.SeriesEntry) error {
			fmt.Fprintf(w, "voided %s (entry %d)\n", entry.GetId(), entry.GetSeq())
			return nil
		})
	}
}

func seriesJournalCmd(fs *flag.FlagSet) func(*env, []string) error {
	from := fs.Uint64("from", 0, "first entry (seq)")
	to := fs.Uint64("to", 0, "last entry (seq); 0 is the end")
	return func(e *env, args []string) error {
		if e.g.json {
			return e.journal(args[0], *from, *to, jsonLines(e.stdout))
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SEQ\tKIND\tID\tTIME\tACTOR\tREASON")
		err := e.journal(args[0], *from, *to, func(en *idnodev1.SeriesEntry) error {
			_, err := fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", en.GetSeq(), kindName(en.GetKind()), en.GetId(), entryTime(en), en.GetActor(), en.GetReason())
			return err
		})
		return errors.Join(err, tw.Flush())
	}
}

func seriesExportCmd(fs *flag.FlagSet) func(*env, []string) error {
	as := fs.String("as", "csv", "csv, or jsonl (one JSON object per line)")
	out := fs.String("out", "-", "the file to write; - is standard output")
	return func(e *env, args []string) (err error) {
		if *as != "csv" && *as != "jsonl" {
			return usagef("--as must be csv or jsonl, not %q", *as)
		}
		w := e.stdout
		if *out != "-" {
			f, err := os.Create(*out)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, f.Sync(), f.Close()) }()
			w = f
		}
		if *as == "jsonl" {
			return e.journal(args[0], 0, 0, jsonLines(w))
		}
		cw := csv.NewWriter(w)
		if err := cw.Write(exportHeader); err != nil {
			return err
		}
		err = e.journal(args[0], 0, 0, func(en *idnodev1.SeriesEntry) error { return cw.Write(exportRow(en)) })
		cw.Flush()
		return errors.Join(err, cw.Error())
	}
}

// exportHeader names the CSV columns: every field of an entry, the caller's fields as
// key=value pairs joined by ';'.
var exportHeader = []string{"seq", "kind", "period", "number", "id", "time", "request_id", "document_hash", "fields",
	"actor", "reason", "correcting", "prev_hash", "hash"}

func exportRow(en *idnodev1.SeriesEntry) []string {
	fields := make([]string, len(en.GetFields()))
	for i, f := range en.GetFields() {
		fields[i] = f.GetKey() + "=" + f.GetValue()
	}
	return []string{strconv.FormatUint(en.GetSeq(), 10), kindName(en.GetKind()), en.GetPeriod(), strconv.FormatInt(en.GetNumber(), 10),
		en.GetId(), entryTime(en), en.GetRequestId(), en.GetDocumentHash(), strings.Join(fields, ";"),
		en.GetActor(), en.GetReason(), en.GetCorrecting(), en.GetPrevHash(), en.GetHash()}
}

func seriesGapsCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		if e.g.json {
			lines := jsonLines(e.stdout)
			return e.journal(args[0], 0, 0, func(en *idnodev1.SeriesEntry) error {
				if en.GetKind() != idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED {
					return nil
				}
				return lines(en)
			})
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tVOIDED\tBY\tREASON\tCORRECTING")
		err := e.journal(args[0], 0, 0, func(en *idnodev1.SeriesEntry) error {
			if en.GetKind() != idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED {
				return nil
			}
			_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", en.GetId(), entryTime(en), en.GetActor(), en.GetReason(), en.GetCorrecting())
			return err
		})
		return errors.Join(err, tw.Flush())
	}
}

func seriesVerifyCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		var r *idnodev1.VerifySeriesResponse
		if err := e.call("VerifySeries", func(ctx context.Context, c *client.Client) (err error) {
			r, err = c.Series().Verify(ctx, args[0])
			return err
		}); err != nil {
			return err
		}
		if e.g.json {
			if err := printProto(e.stdout, r); err != nil {
				return err
			}
		} else if r.GetOk() {
			fmt.Fprintf(e.stdout, "series %s verifies: %d entries, %d issued, %d voided\n", args[0], r.GetEntries(), r.GetIssued(), r.GetVoided())
		}
		if !r.GetOk() {
			return fmt.Errorf("series %s does not verify: entry %d: %s", args[0], r.GetBreakSeq(), r.GetBreakReason())
		}
		return nil
	}
}

// journal walks a series' journal through the session.
func (e *env) journal(series string, from, to uint64, fn func(*idnodev1.SeriesEntry) error) error {
	return e.call("Journal", func(ctx context.Context, c *client.Client) error {
		return c.Series().Journal(ctx, series, from, to, fn)
	})
}

// jsonLines writes each entry as one line of JSON.
func jsonLines(w io.Writer) func(*idnodev1.SeriesEntry) error {
	opts := protojson.MarshalOptions{UseProtoNames: true}
	return func(en *idnodev1.SeriesEntry) error {
		b, err := opts.Marshal(en)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
}

func entryTime(en *idnodev1.SeriesEntry) string {
	return time.UnixMilli(en.GetTimeMs()).UTC().Format(time.RFC3339Nano)
}

func kindName(k idnodev1.SeriesEntryKind) string {
	return strings.ToLower(strings.TrimPrefix(k.String(), "SERIES_ENTRY_KIND_"))
}

func periodName(p idnodev1.SeriesPeriod) string {
	return strings.ToLower(strings.TrimPrefix(p.String(), "SERIES_PERIOD_"))
}

func policyName(p idnodev1.SeriesPolicy) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(p.String(), "SERIES_POLICY_")), "_", "-")
}
