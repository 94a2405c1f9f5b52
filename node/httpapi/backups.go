package httpapi

import (
	"encoding/json"
	"net/http"

	"google.golang.org/grpc/codes"
)

// BackupStatus is what a node knows of the cluster's scheduled backups
// (docs/scheduled-backups.md), as GET /v1/backups answers it for the console. The leader takes
// them, so the leader knows: a follower answers what it saw when it last led, if it has since
// its start, and Leader false tells the console to say where to look.
type BackupStatus struct {
	// Scheduled is false on a node with no --backup-target; the rest is then empty.
	Scheduled bool `json:"scheduled"`
	// Store names where the backups go: the folder, or the bucket and its endpoint.
	Store      string `json:"store,omitempty"`
	IntervalMs int64  `json:"intervalMs,omitempty"`
	// Leader: this node leads, so it takes the backups and its view is current.
	Leader bool `json:"leader"`
	// CheckedAtMs is when this node last listed the store (Unix ms); 0: it has not led since
	// its start, and knows of no backup.
	CheckedAtMs int64 `json:"checkedAtMs,omitempty"`
	// Count is how many of the cluster's backups the store held then; Backups are the newest
	// of them, at most MaxBackupsShown, newest first.
	Count   int           `json:"count"`
	Backups []BackupEntry `json:"backups"`
	// NewestAgeMs is the age of the newest backup now, when there is one.
	NewestAgeMs *int64 `json:"newestAgeMs,omitempty"`
	// Failures counts the scheduled backups that failed on this node since its start; the
	// last one's time and reason are in LastFailure.
	Failures    int64          `json:"failures"`
	LastFailure *BackupFailure `json:"lastFailure,omitempty"`
}

// MaxBackupsShown bounds BackupStatus.Backups: a retention by age alone may keep thousands.
const MaxBackupsShown = 20

// BackupEntry is one backup in the store.
type BackupEntry struct {
	Name      string `json:"name"`
	SizeBytes int64  `json:"sizeBytes"`
	// SlotMs is the start of the slot the backup is of; StoredAtMs when the store received
	// it; AgeMs how long ago that was.
	SlotMs     int64 `json:"slotMs"`
	StoredAtMs int64 `json:"storedAtMs"`
	AgeMs      int64 `json:"ageMs"`
}

// BackupFailure is when a scheduled backup failed, and why.
type BackupFailure struct {
	AtMs  int64  `json:"atMs"`
	Error string `json:"error"`
}

// serveBackups answers GET /v1/backups from status. Like /v1/history it is open to any
// caller that reaches the port: names, sizes and times of backups, and the store's name (never
// its credentials), nothing of what the backups hold.
func serveBackups(mux *http.ServeMux, status func() BackupStatus) {
	mux.HandleFunc("GET /v1/backups", func(w http.ResponseWriter, _ *http.Request) {
		s := status()
		if s.Backups == nil {
			s.Backups = []BackupEntry{}
		}
		body, err := json.Marshal(s)
		if err != nil {
			refuse(w, http.StatusInternalServerError, codes.Internal, "", "backups: "+err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(body)
	})
}
