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
# StatusResponse has a field named "self", which protoc's stub writes as a second "self"
# parameter of __init__: a syntax error to mypy in every user's project. Stubs may name the
# instance parameter anything; "__self" (positional-only) frees the keyword.
sed -i '/, self: _Optional/s/def __init__(self, /def __init__(__self, /' "$out/idnode/v1/idnode_pb2.pyi"
protoc -I "$out" --python_out="$out" --pyi_out="$out" idnode/_private/rpc_status.proto
