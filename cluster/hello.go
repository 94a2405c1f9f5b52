package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// The hello exchange shares the Raft port (after TLS, when on) with raft's own RPCs, so a
// node that is not a member yet can learn who its peers are without any other listener.
// raft opens every connection with a small rpc type byte (0–4); a connection that opens
// with helloByte instead gets this node's hello, one JSON line, and is closed (portMux).
const (
	helloByte    = 'I'
	helloTimeout = 2 * time.Second
	// helloPeekTimeout bounds how long an accepted connection may stay silent before its
	// first byte says what it is; raft writes its first RPC right after dialing.
	helloPeekTimeout = 10 * time.Second
	maxHelloBytes    = 1 << 20
)

// hello is what a node tells a peer that asks who it is.
type hello struct {
	// ID is the node's Raft server ID (docid.MemberID: tag and data dir incarnation).
	ID string `json:"id"`
	// Formed is set once the node's data dir holds Raft state: it belongs to a cluster.
	Formed bool `json:"formed"`
	// Servers is the newest Raft configuration the node knows, when it knows one. A formed
	// node that is still starting has none yet; ask again.
	Servers []helloServer `json:"servers,omitempty"`
	// Region is the node's region label (Config.Region), and Applied the newest log index
	// its state machine has applied: a leader looks for a caught-up voter of the preferred
	// region by them (placement.go).
	Region  string `json:"region,omitempty"`
	Applied uint64 `json:"applied,omitempty"`
}

type helloServer struct {
	ID      string `json:"id"`
	Address string `json:"address"`
	Voter   bool   `json:"voter"`
}

func helloServers(c raft.Configuration) []helloServer {
	out := make([]helloServer, 0, len(c.Servers))
	for _, s := range c.Servers {
		out = append(out, helloServer{ID: string(s.ID), Address: string(s.Address), Voter: s.Suffrage == raft.Voter})
	}
	return out
}

// configuration is the Raft configuration a formed node reported.
func (h hello) configuration() raft.Configuration {
	var c raft.Configuration
	for _, s := range h.Servers {
		suffrage := raft.Nonvoter
		if s.Voter {
			suffrage = raft.Voter
		}
		c.Servers = append(c.Servers, raft.Server{Suffrage: suffrage, ID: raft.ServerID(s.ID), Address: raft.ServerAddress(s.Address)})
	}
	return c
}

// has reports whether id is a member of the reported configuration.
func (h hello) has(id string) bool {
	for _, s := range h.Servers {
		if s.ID == id {
			return true
		}
	}
	return false
}

// askHello asks the node at addr who it is.
func askHello(dial func(raft.ServerAddress, time.Duration) (net.Conn, error), addr string) (hello, error) {
	var h hello
	conn, err := dial(raft.ServerAddress(addr), helloTimeout)
	if err != nil {
		return h, err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(helloTimeout)); err != nil {
		return h, err
	}
	if _, err := conn.Write([]byte{helloByte}); err != nil {
		return h, err
	}
	if err := json.NewDecoder(io.LimitReader(conn, maxHelloBytes)).Decode(&h); err != nil {
		return h, fmt.Errorf("no hello from %s: %w", addr, err)
	}
	if h.ID == "" {
		return h, fmt.Errorf("hello from %s names no node", addr)
	}
	return h, nil
}

// portMux shares the Raft port among raft's own RPCs, hello requests, which it answers
// itself, and node-to-node gRPC (HTTP/2, whose client preface starts with 'P'), which it hands
// to the internal listener. Clients never reach the internal gRPC services: they are not on the
// client port, and on the Raft port, under TLS, only a node's certificate gets in.
type portMux struct {
	l        net.Listener
	answer   func() hello
	raft     *chanListener
	internal *chanListener
	done     chan struct{}
	once     sync.Once
}

// http2PrefaceByte is the first byte of every HTTP/2 connection ("PRI * HTTP/2.0…").
const http2PrefaceByte = 'P'

func newPortMux(l net.Listener, answer func() hello) *portMux {
	m := &portMux{l: l, answer: answer, done: make(chan struct{})}
	m.raft = &chanListener{addr: l.Addr(), conns: make(chan net.Conn), done: m.done, close: m.Close}
	m.internal = &chanListener{addr: l.Addr(), conns: make(chan net.Conn), done: make(chan struct{})}
	m.internal.close = m.internal.closeDone
	go m.acceptLoop()
	return m
}

func (m *portMux) acceptLoop() {
	for {
		conn, err := m.l.Accept()
		if err != nil {
			select {
			case <-m.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				_ = m.Close()
				return
			}
			// A transient accept error (too many open files): back off, as net/http does.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go m.route(conn)
	}
}

// route reads a connection's first byte: a hello is answered here; gRPC goes to the internal
// listener and anything else to raft, with that byte put back.
func (m *portMux) route(conn net.Conn) {
	first := make([]byte, 1)
	_ = conn.SetReadDeadline(time.Now().Add(helloPeekTimeout))
	if _, err := io.ReadFull(conn, first); err != nil {
		_ = conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	to := m.raft
	switch first[0] {
	case helloByte:
		defer conn.Close()
		_ = conn.SetWriteDeadline(time.Now().Add(helloTimeout))
		_ = json.NewEncoder(conn).Encode(m.answer())
		return
	case http2PrefaceByte:
		to = m.internal
	}
	to.hand(&peekedConn{Conn: conn, r: io.MultiReader(bytes.NewReader(first), conn)})
}

// Close stops the port: the listener, raft's side and the internal side.
func (m *portMux) Close() error {
	var err error
	m.once.Do(func() {
		close(m.done)
		err = m.l.Close()
		_ = m.internal.Close()
	})
	return err
}

// chanListener is one side of a portMux: a net.Listener whose connections the mux hands over.
type chanListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	close func() error
	once  sync.Once
}

func (c *chanListener) hand(conn net.Conn) {
	select {
	case c.conns <- conn:
	case <-c.done:
		_ = conn.Close()
	}
}

func (c *chanListener) Accept() (net.Conn, error) {
	select {
	case conn := <-c.conns:
		return conn, nil
	case <-c.done:
		return nil, net.ErrClosed
	}
}

func (c *chanListener) Close() error   { return c.close() }
func (c *chanListener) Addr() net.Addr { return c.addr }

func (c *chanListener) closeDone() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// peekedConn is a connection whose first bytes were read already and are replayed.
type peekedConn struct {
	net.Conn
	r io.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
