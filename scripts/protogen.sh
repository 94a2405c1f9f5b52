#!/usr/bin/env bash
# Regenerates the committed Go code from proto/. Needs protoc (Debian: protobuf-compiler);
# installs the pinned Go plugins into GOPATH/bin if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"
command -v protoc-gen-go >/dev/null || go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
command -v protoc-gen-go-grpc >/dev/null || go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
protoc --proto_path=proto \
  --go_out=. --go_opt=module=github.com/idnode/idnode \
  --go-grpc_out=. --go-grpc_opt=module=github.com/idnode/idnode \
  $(cd proto && find . -name '*.proto' | sed 's|^\./||' | sort)
