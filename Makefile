# Docker workflow for the three-node cluster in deploy/. `go run ./cmd/idnode` needs none of
# this; the chaos suite in test/e2e/chaos builds its image with `make image IMAGE=idnode:chaos`.
COMPOSE ?= $(shell docker compose version >/dev/null 2>&1 && echo "docker compose" || echo docker-compose)
PROJECT ?= idnode
IMAGE ?= idnode:dev
# The compose file takes its image from IDNODE_IMAGE (default idnode:dev).
COMPOSE_RUN = IDNODE_IMAGE=$(IMAGE) $(COMPOSE) -p $(PROJECT) -f deploy/docker-compose.yml

# The version every surface reports (idnode version, Status, idnode_build_info): the tag of the
# checkout, or the commit with -dirty for uncommitted changes. Stamped at link time, since a
# build with GOFLAGS=-buildvcs=false or from a copy without .git has no VCS information.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS = -s -w -X github.com/idnode/idnode/internal/version.version=$(VERSION) -X github.com/idnode/idnode/internal/version.commit=$(COMMIT)

# What `make dist` builds: static binaries for each of these, named idnode-VERSION-OS-ARCH,
# in DIST (a test builds one platform's in a directory of its own).
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST ?= dist
# The SBOM's time is the commit's, so building one commit twice writes the same document.
CREATED ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null || echo 1970-01-01T00:00:00Z)

.PHONY: build dist image cluster-up cluster-down

# idnode and idctl in ./bin, with the version stamped.
build:
	go build -ldflags="$(LDFLAGS)" -o bin/ ./cmd/idnode ./cmd/idctl

# Release artefacts in ./dist: static, version-stamped idnode and idctl for every platform, the
# licence and third-party list they ship under, an SPDX SBOM from the binaries' build
# information, and SHA256SUMS over all of them (check with `sha256sum -c SHA256SUMS`).
dist:
	rm -rf $(DIST) && mkdir $(DIST)
	for p in $(PLATFORMS); do \
	  for b in idnode idctl; do \
	    CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} go build -trimpath -ldflags="$(LDFLAGS)" \
	      -o $(DIST)/$$b-$(VERSION)-$${p%/*}-$${p#*/} ./cmd/$$b || exit 1; \
	  done; \
	done
	cp LICENSE THIRD_PARTY.md $(DIST)/
	go run ./internal/cmd/release sbom -version $(VERSION) -created $(CREATED) $(DIST)/idnode-* $(DIST)/idctl-* > $(DIST)/idnode-$(VERSION).spdx.json
	go run ./internal/cmd/release sums $(DIST) > $(DIST)/SHA256SUMS

# The image is FROM scratch: build the static binary first, then copy it in (nothing is pulled),
# with the empty directory that becomes /data, owned by the image's unprivileged user.
image:
	CGO_ENABLED=0 go build -trimpath -ldflags="$(LDFLAGS)" -o deploy/bin/idnode ./cmd/idnode
	rm -rf deploy/bin/data && mkdir deploy/bin/data
	docker build -q --build-arg VERSION=$(VERSION) -t $(IMAGE) deploy

# Start the cluster and wait (at most 60 s) until all three nodes report healthy.
cluster-up: image
	$(COMPOSE_RUN) up -d
	@for i in $$(seq 1 120); do \
	  healthy=0; \
	  for c in $$($(COMPOSE_RUN) ps -q); do \
	    [ "$$(docker inspect -f '{{.State.Health.Status}}' $$c)" = healthy ] && healthy=$$((healthy+1)); \
	  done; \
	  if [ $$healthy -eq 3 ]; then echo "cluster healthy: gRPC on 127.0.0.1:7071, 7072, 7073"; exit 0; fi; \
	  sleep 0.5; \
	done; \
	echo "cluster not healthy after 60 s:"; $(COMPOSE_RUN) ps; $(COMPOSE_RUN) logs --tail 20; exit 1

# Stop the cluster and delete its volumes (all data).
cluster-down:
	$(COMPOSE_RUN) down -v --remove-orphans
