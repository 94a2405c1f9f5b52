# Docker workflow for the three-node cluster in deploy/. `go run ./cmd/idnode` needs none of
# this; the chaos suite in test/e2e builds its image with `make image IMAGE=idnode:chaos`.
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
LDFLAGS = -s -w -X github.com/idnode/idnode/version.version=$(VERSION) -X github.com/idnode/idnode/version.commit=$(COMMIT)

.PHONY: build image cluster-up cluster-down

# idnode and idctl in ./bin, with the version stamped.
build:
	go build -ldflags="$(LDFLAGS)" -o bin/ ./cmd/idnode ./cmd/idctl

# The image is FROM scratch: build the static binary first, then copy it in (nothing is pulled).
image:
	CGO_ENABLED=0 go build -trimpath -ldflags="$(LDFLAGS)" -o deploy/bin/idnode ./cmd/idnode
	docker build -q -t $(IMAGE) deploy

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
