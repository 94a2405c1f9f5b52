package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/idnode/idnode/server"
)

// answerBytesFile, in a child run of TestAnswersAreTheSameBytesInEveryBuild, is where the
// child writes what it saw.
const answerBytesFile = "IDNODE_TEST_ANSWER_BYTES_FILE"

// answerBytes is what one build answered, and whether protojson spaces its output in that
// build (it adds a space after commas in about half of all builds, on purpose).
type answerBytes struct {
	Spaced  bool     `json:"spaced"`
	Answers []string `json:"answers"`
}

// The HTTP API answers the same bytes in every build: compact JSON, as the README shows it,
// whichever way protojson's build-dependent spacing falls. protojson seeds that choice with a
// hash of the running executable, so the test runs copies of its own binary made different by
// trailing bytes until it has seen a build that spaces and one that does not.
func TestAnswersAreTheSameBytesInEveryBuild(t *testing.T) {
	if out := os.Getenv(answerBytesFile); out != "" {
		writeAnswerBytes(t, out)
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	binary, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"ids":["users/1","users/2","users/3"]}`,
		`{"code":3,"message":"count is above the maximum of 100000 per call: \"1000000\"","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INVALID_INPUT","domain":"idnode.dev","metadata":{}}]}`,
		`{"code":12,"message":"DELETE /v1/ids: this path takes POST only","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNIMPLEMENTED","domain":"idnode.dev","metadata":{}}]}`,
	}
	seen := map[bool]bool{}
	dir := t.TempDir()
	for pad := 0; pad < 16 && len(seen) < 2; pad++ {
		build := filepath.Join(dir, "build")
		if err := os.WriteFile(build, append(binary, make([]byte, pad)...), 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "answers.json")
		cmd := exec.CommandContext(t.Context(), build, "-test.run=^TestAnswersAreTheSameBytesInEveryBuild$", "-test.timeout=2m")
		cmd.Env = append(os.Environ(), answerBytesFile+"="+out)
		if log, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the build padded by %d bytes: %v\n%s", pad, err, log)
		}
		var got answerBytes
		data, err := os.ReadFile(out)
		if err == nil {
			err = json.Unmarshal(data, &got)
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[got.Spaced] = true
		for i := range want {
			if i >= len(got.Answers) || got.Answers[i] != want[i] {
				t.Fatalf("a build whose protojson spaces its output: %v answered\n%q\nwant\n%q", got.Spaced, got.Answers, want)
			}
		}
	}
	if !seen[true] {
		t.Fatal("no build tried spaced protojson's output, so this test could not fail")
	}
}

// writeAnswerBytes is the child's part: a fresh node's answers, byte for byte, to out.
func writeAnswerBytes(t *testing.T, out string) {
	g := newTestGateway(t, server.Limits{}, Interceptors{})
	var got answerBytes
	list, err := structpb.NewList([]any{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	spaced, err := protojson.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	got.Spaced = bytes.Contains(spaced, []byte(", "))
	// Served, refused by the node, refused by the gateway before any call.
	for _, req := range []struct{ method, body string }{
		{"POST", `{"id":"users|","count":3}`}, {"POST", `{"id":"users|","count":1000000}`}, {"DELETE", ""},
	} {
		r := httptest.NewRequest(req.method, "/v1/ids", strings.NewReader(req.body))
		r.Host = "localhost:7080"
		r.RemoteAddr = "127.0.0.1:5000"
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		g.direct.ServeHTTP(w, r)
		answer, _ := io.ReadAll(w.Body)
		got.Answers = append(got.Answers, string(answer))
	}
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
