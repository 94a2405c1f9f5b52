package node

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/idnode/idnode/internal/grpcstop"
	"github.com/idnode/idnode/internal/inprocess"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// backupSource takes scheduled backups through the node's own Backup call, on an in-process
// gRPC server only this process can reach: the bytes are those idctl backup receives, with the
// same read barrier, rates and checks.
type backupSource struct {
	server *grpc.Server
	conn   *grpc.ClientConn
	lis    *inprocess.Listener
	token  string // the admin token, when the node has one
}

// startBackupSource serves n.server's services in-process.
func (n *Node) startBackupSource(adminToken string) (*backupSource, error) {
	s := &backupSource{lis: inprocess.Listen(), token: adminToken}
	// The in-process caller is this process, so on this machine: it counts as a loopback
	// caller (what a node without an admin token takes admin calls from); with a token it
	// sends the token like any other caller.
	s.server = grpc.NewServer(append([]grpc.ServerOption{grpc.ChainStreamInterceptor(asLoopback)}, n.server.ServerOptions()...)...)
	n.server.Register(s.server)
	go func() { _ = s.server.Serve(s.lis) }()
	conn, err := grpc.NewClient("passthrough:///inprocess", grpc.WithContextDialer(s.lis.DialContext),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		s.server.Stop()
		return nil, err
	}
	s.conn = conn
	return s, nil
}

var loopbackPeer = &peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}

func asLoopback(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, loopbackStream{ss})
}

type loopbackStream struct{ grpc.ServerStream }

func (s loopbackStream) Context() context.Context {
	return peer.NewContext(s.ServerStream.Context(), loopbackPeer)
}

// write streams a whole-cluster backup to w.
func (s *backupSource) write(ctx context.Context, w io.Writer) error {
	if s.token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+s.token)
	}
	stream, err := idnodev1.NewClusterServiceClient(s.conn).Backup(ctx, &idnodev1.BackupRequest{})
	if err != nil {
		return err
	}
	for {
		c, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(c.GetData()); err != nil {
			return err
		}
	}
}

// stop ends the connection and the server, waiting up to grace for a backup under way.
func (s *backupSource) stop(grace time.Duration) {
	_ = s.conn.Close()
	grpcstop.Gracefully(grace, s.server)
	_ = s.lis.Close()
}
