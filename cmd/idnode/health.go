package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idnode/idnode/internal/tlsconfig"
)

// runHealth is `idnode health`: it asks a node's grpc.health.v1 service and exits 0 only when
// the answer is SERVING, so a container health check needs no shell or extra tool in a
// scratch image.
func runHealth(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("idnode health", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:7070", "gRPC address of the node to check (IDNODE_GRPC_ADDR when not given)")
	service := fs.String("service", "", `health service name: "" for every strategy, idnode.v1.IdService/local or idnode.v1.IdService/consensus`)
	timeout := fs.Duration("timeout", 2*time.Second, "how long to wait for the answer")
	tlsCA := fs.String("tls-ca", "", "CA to verify a TLS node with (IDNODE_TLS_CA when not given); empty: plaintext")
	tlsCert := fs.String("tls-cert", "", "client certificate to present (IDNODE_TLS_CERT when not given)")
	tlsKey := fs.String("tls-key", "", "key of --tls-cert (IDNODE_TLS_KEY when not given)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(out, "Usage: idnode health [flags]   (exit 0 when the node answers SERVING)\n\nFlags:")
			fs.SetOutput(out)
			fs.PrintDefaults()
			return nil
		}
		return fmt.Errorf("health: %w (flags: --addr, --service, --timeout, --tls-ca, --tls-cert, --tls-key)", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for flagName, env := range map[string]string{"addr": "IDNODE_GRPC_ADDR", "tls-ca": "IDNODE_TLS_CA", "tls-cert": "IDNODE_TLS_CERT", "tls-key": "IDNODE_TLS_KEY"} {
		if v := getenv(env); v != "" && !set[flagName] {
			_ = fs.Set(flagName, v)
		}
	}
	creds := insecure.NewCredentials()
	if *tlsCA != "" {
		tc, err := tlsconfig.Client(*tlsCA, *tlsCert, *tlsKey, "")
		if err != nil {
			return fmt.Errorf("health: %w", err)
		}
		creds = credentials.NewTLS(tc)
	}
	cc, err := grpc.NewClient("passthrough:///"+*addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	resp, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: *service})
	if err != nil {
		return fmt.Errorf("health of %s: %w", *addr, err)
	}
	fmt.Fprintf(out, "%s %s\n", *addr, resp.GetStatus())
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("health of %s: %s", *addr, resp.GetStatus())
	}
	return nil
}
