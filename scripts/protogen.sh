#!/usr/bin/env bash
# Regenerates the committed generated code from proto/: the Go packages, then the Python
# client's modules. Needs protoc (Debian: protobuf-compiler) and grpc_python_plugin (Debian:
# protobuf-compiler-grpc); installs the pinned Go plugins into GOPATH/bin if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v grpc_python_plugin >/dev/null || { echo "protogen: no grpc_python_plugin (Debian: apt-get install protobuf-compiler-grpc)" >&2; exit 1; }
export PATH="$(go env GOPATH)/bin:$PATH"
command -v protoc-gen-go >/dev/null || go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
command -v protoc-gen-go-grpc >/dev/null || go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
command -v protoc-gen-grpc-gateway >/dev/null || go install github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway@v2.33.0
command -v protoc-gen-openapiv2 >/dev/null || go install github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2@v2.33.0
protoc --proto_path=proto \
  --go_out=. --go_opt=module=github.com/idnode/idnode \
  --go-grpc_out=. --go-grpc_opt=module=github.com/idnode/idnode \
  $(cd proto && find . -name '*.proto' | sed 's|^\./||' | sort)
# The HTTP/JSON gateway and its OpenAPI description, from the routes in idnode_http.yaml. The
# gateway is a package of its own (standalone), so importers of idnodev1 (the Go client) do not
# pull grpc-gateway in: protoc writes it beside the types, and it moves to gateway/.
gw=$(mktemp -d)
trap 'rm -rf "$gw"' EXIT
protoc --proto_path=proto \
  --grpc-gateway_out="$gw" --grpc-gateway_opt=paths=source_relative,grpc_api_configuration=proto/idnode/v1/idnode_http.yaml,standalone=true \
  --openapiv2_out="$gw" --openapiv2_opt=grpc_api_configuration=proto/idnode/v1/idnode_http.yaml \
  idnode/v1/idnode.proto
mkdir -p proto/idnode/v1/gateway
sed 's/^package idnodev1$/package gateway/; s/^Package idnodev1 is a reverse proxy\./Package gateway is a reverse proxy./' \
  "$gw/idnode/v1/idnode.pb.gw.go" > proto/idnode/v1/gateway/idnode.pb.gw.go
cp "$gw/idnode/v1/idnode.swagger.json" proto/idnode/v1/gateway/openapi.json

# The Python client's protobuf and gRPC modules, with their type stubs (.pyi), from the public
# API, and the two google.rpc messages it decodes from the package's own copy
# (clients/python/src/idnode/_private), under a package name that cannot clash with
# googleapis-common-protos in a user's process.
py=clients/python/src
protoc --proto_path=proto \
  --python_out="$py" --pyi_out="$py" --grpc_python_out="$py" \
  --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" \
  idnode/v1/idnode.proto
# StatusResponse has a field named "self", which protoc's stub writes as a second "self"
# parameter of __init__: a syntax error to mypy in every user's project. Stubs may name the
# instance parameter anything; "__self" (positional-only) frees the keyword.
sed -i '/, self: _Optional/s/def __init__(self, /def __init__(__self, /' "$py/idnode/v1/idnode_pb2.pyi"
protoc --proto_path="$py" --python_out="$py" --pyi_out="$py" idnode/_private/rpc_status.proto
