package backupcrypt

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
)

// testParams are cheap: the tests below derive a key hundreds of times. chunk is small so that
// a small file has several chunks.
var testParams = Params{Time: 1, MemoryKiB: 8, Threads: 1, ChunkSize: 16}

var passphrase = []byte("correct horse battery staple")

// encrypt returns plain encrypted with passphrase and p, written in pieces of random sizes.
func encrypt(t testing.TB, plain, pass []byte, p Params) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, pass, p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(len(plain)), 1))
	for rest := plain; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(3*int(p.ChunkSize)))
		if k, err := w.Write(rest[:n]); err != nil || k != n {
			t.Fatalf("Write = %d, %v; want %d", k, err, n)
		}
		rest = rest[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// decrypt reads file whole with pass.
func decrypt(file, pass []byte) ([]byte, error) {
	r, err := NewReader(bytes.NewReader(file), pass)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// plaintext is n bytes that differ from chunk to chunk, so that a moved chunk would change
// the result.
func plaintext(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/16)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	c := int(testParams.ChunkSize)
	for _, n := range []int{0, 1, c - 1, c, c + 1, 2 * c, 3*c + 5, 1000} {
		plain := plaintext(n)
		file := encrypt(t, plain, passphrase, testParams)
		if !IsEncrypted(file) {
			t.Fatalf("%d bytes: the file does not start with the magic", n)
		}
		chunks := max(1, (n+c-1)/c)
		if want := headerLen + n + chunks*tagLen; len(file) != want {
			t.Errorf("%d bytes: file of %d bytes, want %d (%d chunks)", n, len(file), want, chunks)
		}
		got, err := decrypt(file, passphrase)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%d bytes: decrypt = %d bytes, %v; want the %d bytes written", n, len(got), err, n)
		}
	}
}

func TestRoundTripWithTheDefaultParams(t *testing.T) {
	plain := plaintext(3*int(DefaultParams.ChunkSize) + 100)
	file := encrypt(t, plain, passphrase, DefaultParams)
	got, err := decrypt(file, passphrase)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("decrypt = %d bytes, %v", len(got), err)
	}
}

func TestTwoFilesOfTheSameBackupDiffer(t *testing.T) {
	plain := plaintext(100)
	a, b := encrypt(t, plain, passphrase, testParams), encrypt(t, plain, passphrase, testParams)
	if bytes.Equal(a[headerLen:], b[headerLen:]) {
		t.Fatal("two encryptions of one backup are the same bytes: the salt is not fresh")
	}
}

func TestWrongPassphrase(t *testing.T) {
	file := encrypt(t, plaintext(100), passphrase, testParams)
	_, err := NewReader(bytes.NewReader(file), []byte("correct horse battery stapler"))
	if !errors.Is(err, ErrAuthentication) {
		t.Fatalf("NewReader with the wrong passphrase: %v, want %v", err, ErrAuthentication)
	}
	if _, err := NewReader(bytes.NewReader(file), nil); !errors.Is(err, ErrEmptyPassphrase) {
		t.Fatalf("NewReader with no passphrase: %v, want %v", err, ErrEmptyPassphrase)
	}
	if _, err := NewWriter(io.Discard, nil, testParams); !errors.Is(err, ErrEmptyPassphrase) {
		t.Fatalf("NewWriter with no passphrase: %v, want %v", err, ErrEmptyPassphrase)
	}
}

// TestEverySingleByteFlipIsDetected flips each byte of a small file of four chunks, header
// included, in two ways: no flip reads back.
func TestEverySingleByteFlipIsDetected(t *testing.T) {
	file := encrypt(t, plaintext(3*int(testParams.ChunkSize)+5), passphrase, testParams)
	for i := range file {
		for _, mask := range []byte{0x01, 0xff} {
			altered := bytes.Clone(file)
			altered[i] ^= mask
			got, err := decrypt(altered, passphrase)
			if err == nil {
				t.Fatalf("byte %d ^ %#x: read back %d bytes without an error", i, mask, len(got))
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("byte %d ^ %#x: %v reads as a normal end", i, mask, err)
			}
			if i >= headerLen && !errors.Is(err, ErrAuthentication) {
				t.Fatalf("byte %d (a chunk's) ^ %#x: %v, want %v", i, mask, err, ErrAuthentication)
			}
		}
	}
}

// TestEveryTruncationIsDetected cuts the file at every length, every chunk boundary among
// them: none reads back, and none ends in an error a caller could take for a normal end.
func TestEveryTruncationIsDetected(t *testing.T) {
	c := int(testParams.ChunkSize)
	for _, n := range []int{0, 3 * c, 3*c + 5} { // an empty backup, a whole last chunk, a short one
		file := encrypt(t, plaintext(n), passphrase, testParams)
		for cut := 0; cut < len(file); cut++ {
			got, err := decrypt(file[:cut], passphrase)
			if err == nil {
				t.Fatalf("%d bytes cut to %d of %d: read back %d bytes without an error", n, cut, len(file), len(got))
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%d bytes cut to %d: %v reads as a normal end", n, cut, err)
			}
			atBoundary := cut > headerLen && (cut-headerLen)%(c+tagLen) == 0
			if (cut < headerLen || atBoundary) && !errors.Is(err, ErrTruncated) && cut >= len(Magic) {
				t.Fatalf("%d bytes cut to %d (at a boundary: %v): %v, want %v", n, cut, atBoundary, err, ErrTruncated)
			}
		}
	}
}

// chunksOf splits a file into its header and its sealed chunks.
func chunksOf(file []byte, chunk int) (head []byte, chunks [][]byte) {
	head, rest := file[:headerLen], file[headerLen:]
	for len(rest) > 0 {
		n := min(len(rest), chunk+tagLen)
		chunks = append(chunks, rest[:n])
		rest = rest[n:]
	}
	return head, chunks
}

func join(head []byte, chunks ...[]byte) []byte {
	return bytes.Join(append([][]byte{head}, chunks...), nil)
}

func TestReorderedDroppedAndRepeatedChunksAreDetected(t *testing.T) {
	c := int(testParams.ChunkSize)
	file := encrypt(t, plaintext(4*c), passphrase, testParams)
	head, ch := chunksOf(file, c)
	if len(ch) != 4 {
		t.Fatalf("%d chunks, want 4", len(ch))
	}
	for name, altered := range map[string][]byte{
		"first two swapped":        join(head, ch[1], ch[0], ch[2], ch[3]),
		"middle two swapped":       join(head, ch[0], ch[2], ch[1], ch[3]),
		"last moved first":         join(head, ch[3], ch[0], ch[1], ch[2]),
		"last two swapped":         join(head, ch[0], ch[1], ch[3], ch[2]),
		"second dropped":           join(head, ch[0], ch[2], ch[3]),
		"last dropped":             join(head, ch[0], ch[1], ch[2]),
		"second repeated":          join(head, ch[0], ch[1], ch[1], ch[2], ch[3]),
		"last repeated":            join(head, ch[0], ch[1], ch[2], ch[3], ch[3]),
		"a byte appended":          append(bytes.Clone(file), 0),
		"another file's chunk":     join(head, ch[0], encryptedChunk(t, 1, c), ch[2], ch[3]),
		"another file's header":    join(encrypt(t, nil, passphrase, testParams)[:headerLen], ch...),
		"chunks of another file":   join(head, ch[0], ch[1], ch[2], encryptedChunk(t, 3, c)),
		"a header without a chunk": head,
		"the first chunk alone":    join(head, ch[0]),
		"the last chunk alone":     join(head, ch[3]),
	} {
		if got, err := decrypt(altered, passphrase); err == nil {
			t.Errorf("%s: read back %d bytes without an error", name, len(got))
		}
	}
}

// encryptedChunk is chunk i of another encryption, with the same passphrase, of a backup of
// four chunks.
func encryptedChunk(t *testing.T, i, c int) []byte {
	_, ch := chunksOf(encrypt(t, plaintext(4*c), passphrase, testParams), c)
	return ch[i]
}

func TestHostileHeadersAreRefusedBeforeTheKDF(t *testing.T) {
	good := encrypt(t, plaintext(10), passphrase, testParams)
	at := func(field int, b ...byte) []byte {
		f := bytes.Clone(good)
		copy(f[len(Magic)+field:], b)
		return f
	}
	for name, tc := range map[string]struct {
		file []byte
		want error
	}{
		"a plain backup":        {[]byte("idnode-fsm-snapshot-v1\n\x01\x02"), ErrNotEncrypted},
		"nothing":               {nil, ErrNotEncrypted},
		"version 2":             {at(0, 2), ErrVersion},
		"KDF 2":                 {at(1, 2), ErrVersion},
		"time 0":                {at(2, 0, 0, 0, 0), ErrHeader},
		"time 2^32-1":           {at(2, 0xff, 0xff, 0xff, 0xff), ErrHeader},
		"memory 4 TiB":          {at(6, 0xff, 0xff, 0xff, 0xff), ErrHeader},
		"threads 0":             {at(10, 0), ErrHeader},
		"threads 255":           {at(10, 255), ErrHeader},
		"chunk 0":               {at(11+saltLen, 0, 0, 0, 0), ErrHeader},
		"chunk 4 GiB":           {at(11+saltLen, 0xff, 0xff, 0xff, 0xff), ErrHeader},
		"the magic alone":       {[]byte(Magic), ErrTruncated},
		"cut inside the header": {good[:headerLen-1], ErrTruncated},
	} {
		derived := false
		_, err := newReader(bytes.NewReader(tc.file), func(*header) ([]byte, error) {
			derived = true
			return make([]byte, keyLen), nil
		})
		if !errors.Is(err, tc.want) || derived {
			t.Errorf("%s: %v (key derived: %v), want %v before any key", name, err, derived, tc.want)
		}
	}
}

func TestWriterErrorsAreSticky(t *testing.T) {
	w, err := NewWriter(&failAfter{n: headerLen}, passphrase, testParams)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Write(plaintext(3 * int(testParams.ChunkSize))) // seals two chunks: the first write fails
	if err == nil {
		t.Fatal("a write onto a failing writer succeeded")
	}
	if _, again := w.Write([]byte{1}); !errors.Is(again, errWriteFailed) {
		t.Errorf("the next write: %v, want the first error again", again)
	}
	if cerr := w.Close(); !errors.Is(cerr, errWriteFailed) {
		t.Errorf("Close after a failed write: %v, want the first error again", cerr)
	}

	w, _ = NewWriter(io.Discard, passphrase, testParams)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("a write after Close: %v, want %v", err, ErrClosed)
	}
}

var errWriteFailed = errors.New("disk full")

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errWriteFailed
	}
	f.n -= len(p)
	return len(p), nil
}

// pattern is an endless reader of bytes that change, cheaply.
type pattern struct{ i byte }

func (p *pattern) Read(b []byte) (int, error) {
	for k := range b {
		b[k] = p.i
		p.i += 13
	}
	return len(b), nil
}

// TestStreamsWithoutHoldingTheBackup encrypts and decrypts 64 MiB through a pipe with default
// chunks: what both sides allocate stays a few chunks, far below the backup's size.
func TestStreamsWithoutHoldingTheBackup(t *testing.T) {
	const size = 64 << 20
	p := testParams
	p.ChunkSize = DefaultParams.ChunkSize
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pr, pw := io.Pipe()
	go func() {
		w, err := NewWriter(pw, passphrase, p)
		if err == nil {
			_, err = io.CopyN(w, &pattern{}, size)
		}
		if err == nil {
			err = w.Close()
		}
		pw.CloseWithError(err)
	}()
	r, err := NewReader(pr, passphrase)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil || n != size {
		t.Fatalf("read %d bytes, %v; want %d", n, err, size)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("a %d MiB round trip allocated %d bytes: it holds more than a few chunks", size>>20, alloc)
	}
}
