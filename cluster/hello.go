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
// with helloByte instead gets this node's hello, one JSON line, and is closed.
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
	// ID is the node's Raft server ID (memberid: tag and data dir incarnation).
	ID string `json:"id"`
	// Formed is set once the node's data dir holds Raft state: it belongs to a cluster.
	Formed bool `json:"formed"`
	// Servers is the newest Raft configuration the node knows, when it knows one. A formed
	// node that is still starting has none yet; ask again.
	Servers []helloServer `json:"servers,omitempty"`
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

// helloListener hands raft every connection except hello requests, which it answers itself.
type helloListener struct {
	net.Listener
	answer func() hello
	conns  chan net.Conn
	done   chan struct{}
	once   sync.Once
}

func newHelloListener(l net.Listener, answer func() hello) *helloListener {
	h := &helloListener{Listener: l, answer: answer, conns: make(chan net.Conn), done: make(chan struct{})}
	go h.acceptLoop()
	return h
}

func (h *helloListener) acceptLoop() {
	for {
		conn, err := h.Listener.Accept()
		if err != nil {
			select {
			case <-h.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				_ = h.Close()
				return
			}
			// A transient accept error (too many open files): back off, as net/http does.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go h.route(conn)
	}
}

// route reads a connection's first byte: a hello is answered here, anything else goes to raft
// with that byte put back.
func (h *helloListener) route(conn net.Conn) {
	first := make([]byte, 1)
	_ = conn.SetReadDeadline(time.Now().Add(helloPeekTimeout))
	if _, err := io.ReadFull(conn, first); err != nil {
		_ = conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	if first[0] == helloByte {
		defer conn.Close()
		_ = conn.SetWriteDeadline(time.Now().Add(helloTimeout))
		_ = json.NewEncoder(conn).Encode(h.answer())
		return
	}
	select {
	case h.conns <- &peekedConn{Conn: conn, r: io.MultiReader(bytes.NewReader(first), conn)}:
	case <-h.done:
		_ = conn.Close()
	}
}

// Accept implements net.Listener for raft's transport.
func (h *helloListener) Accept() (net.Conn, error) {
	select {
	case c := <-h.conns:
		return c, nil
	case <-h.done:
		return nil, net.ErrClosed
	}
}

func (h *helloListener) Close() error {
	var err error
	h.once.Do(func() {
		close(h.done)
		err = h.Listener.Close()
	})
	return err
}

// peekedConn is a connection whose first bytes were read already and are replayed.
type peekedConn struct {
	net.Conn
	r io.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
