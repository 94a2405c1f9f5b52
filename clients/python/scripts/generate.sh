#!/bin/sh
# Regenerates the committed protobuf and gRPC modules of src/idnode from the repository's
# proto/ (the public API) and from src/idnode/_private (the package's own copy of the two
# google.rpc messages it decodes, under a package name that cannot clash with
# googleapis-common-protos in a user's process). Needs protoc and grpc_python_plugin
# (Debian: protobuf-compiler, protobuf-compiler-grpc).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/../.." && pwd)
out="$here/src"
protoc -I "$repo/proto" \
	--python_out="$out" --pyi_out="$out" --grpc_python_out="$out" \
	--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin \
	idnode/v1/idnode.proto
protoc -I "$out" --python_out="$out" --pyi_out="$out" idnode/_private/rpc_status.proto
