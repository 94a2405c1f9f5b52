package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"text/tabwriter"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// headroomOut is a node's headroom as idctl status prints it (docs/metrics.md, "Headroom").
type headroomOut struct {
	NumericYearsLeft map[string]float64 `json:"numeric_years_left"`
	DiskFreeBytes    uint64             `json:"disk_free_bytes"`
	// DiskFullInDays is absent while the disk is not filling (the node says +Inf, which JSON
	// cannot hold).
	DiskFullInDays *float64              `json:"disk_full_in_days,omitempty"`
	Certificates   []certificateOut      `json:"certificates,omitempty"`
	Databases      []databaseHeadroomOut `json:"databases"`
}

type certificateOut struct {
	Kind     string  `json:"kind"`
	Subject  string  `json:"subject"`
	NotAfter string  `json:"not_after"`
	DaysLeft float64 `json:"days_left"`
}

type databaseHeadroomOut struct {
	Database            string `json:"database"`
	WorkerBits          int32  `json:"worker_bits,omitempty"`
	WorkersLeased       int64  `json:"workers_leased"`
	WorkersFree         int64  `json:"workers_free"`
	WorkersNeverUsed    int64  `json:"workers_never_used"`
	SequenceSaturations uint64 `json:"sequence_saturations"`
	LargestIdentity     string `json:"largest_identity,omitempty"`
	IdentityValuesLeft  int64  `json:"identity_values_left"`
	LargestHiLoTag      string `json:"largest_hilo_tag,omitempty"`
	HiLoValuesLeft      int64  `json:"hilo_values_left"`
	HiLoAbandoned       uint64 `json:"hilo_abandoned"`
}

func headroomOf(h *idnodev1.Headroom, now time.Time) *headroomOut {
	if h == nil {
		return nil
	}
	out := &headroomOut{NumericYearsLeft: h.GetNumericYearsLeft(), DiskFreeBytes: h.GetDiskFreeBytes()}
	if days := h.GetDiskFullInDays(); !math.IsInf(days, 0) && !math.IsNaN(days) {
		out.DiskFullInDays = &days
	}
	for _, c := range h.GetCertificates() {
		notAfter := time.UnixMilli(c.GetNotAfterMs())
		out.Certificates = append(out.Certificates, certificateOut{Kind: c.GetKind(), Subject: c.GetSubject(),
			NotAfter: notAfter.UTC().Format(time.RFC3339), DaysLeft: notAfter.Sub(now).Hours() / 24})
	}
	for _, d := range h.GetDatabases() {
		out.Databases = append(out.Databases, databaseHeadroomOut{Database: d.GetDatabase(), WorkerBits: d.GetWorkerBits(),
			WorkersLeased: d.GetWorkersLeased(), WorkersFree: d.GetWorkersFree(), WorkersNeverUsed: d.GetWorkersNeverUsed(),
			SequenceSaturations: d.GetSequenceSaturations(), LargestIdentity: d.GetLargestIdentity(), IdentityValuesLeft: d.GetIdentityValuesLeft(),
			LargestHiLoTag: d.GetLargestHiloTag(), HiLoValuesLeft: d.GetHiloValuesLeft(), HiLoAbandoned: d.GetHiloAbandoned()})
	}
	return out
}

// printHeadroom writes node tag's headroom: the layouts' years, the disk, the certificates,
// then a row per database.
func printHeadroom(w io.Writer, tag string, h *headroomOut) error {
	layouts := make([]string, 0, len(h.NumericYearsLeft))
	for l := range h.NumericYearsLeft {
		layouts = append(layouts, l)
	}
	sort.Strings(layouts)
	fmt.Fprintf(w, "\nheadroom of node %s:\n", tag)
	for _, l := range layouts {
		fmt.Fprintf(w, "  numeric layout %s: %.1f years left in its time bits\n", l, h.NumericYearsLeft[l])
	}
	full := "not filling over the last hour"
	if h.DiskFullInDays != nil {
		full = fmt.Sprintf("full in %.1f days at the last hour's growth", *h.DiskFullInDays)
	}
	fmt.Fprintf(w, "  data dir disk: %d bytes free, %s\n", h.DiskFreeBytes, full)
	for _, c := range h.Certificates {
		fmt.Fprintf(w, "  TLS %s certificate %s: expires %s (%.1f days)\n", c.Kind, c.Subject, c.NotAfter, c.DaysLeft)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  DATABASE\tWORKERS LEASED/FREE/NEVER USED\tSEQ SATURATIONS\tLARGEST IDENTITY\tVALUES LEFT\tLARGEST HILO\tVALUES LEFT\tHILO ABANDONED")
	for _, d := range h.Databases {
		workers := "-"
		if d.WorkerBits > 0 {
			workers = fmt.Sprintf("%d/%d/%d of %d", d.WorkersLeased, d.WorkersFree, d.WorkersNeverUsed, int64(1)<<d.WorkerBits)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%d\t%s\t%d\t%d\n", d.Database, workers, d.SequenceSaturations,
			dash(d.LargestIdentity), d.IdentityValuesLeft, dash(d.LargestHiLoTag), d.HiLoValuesLeft, d.HiLoAbandoned)
	}
	return tw.Flush()
}
