# Cupid in a small image: a static binary on distroless, run as a non-root
# user.
#
#   docker build --build-arg VERSION=v1.2.3 -t cupid .
#   docker run -p 7070:7070 -v cupid-data:/data cupid
#
# Out of the box the server listens on every interface of the container and
# requires a server key on every call but /healthz and /readyz. On its first
# start it makes /data/server-keys.yaml with one new key (admin scope),
# prints that key once on standard output (docker logs shows it) and keeps
# only its hash; later starts read the file, and so does the running server
# whenever it changes (add keys with `cupid key new`). The store is the
# embedded SQLite database in the /data volume.
#
# To bring your own: mount a configuration with an auth section (server keys
# from a secret file, player tokens) and give the whole command line, e.g.
#   docker run -v ./cupid.yaml:/etc/cupid/cupid.yaml:ro cupid \
#     serve --addr :7070 --data /data --config /etc/cupid/cupid.yaml
# or keep the demo queues and mount only a keys file:
#   docker run -v ./server-keys.yaml:/etc/cupid/server-keys.yaml:ro cupid \
#     serve --addr :7070 --data /data --server-keys-file /etc/cupid/server-keys.yaml
# docs/deployment.md says more; cmd/cupid/dockerfile_test.go runs this
# file's command line, environment and health check against the binary.

# Build: CGO_ENABLED=0 (the SQLite driver is pure Go) and -trimpath, so the
# binary is static and holds no paths of the build machine.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/cupid ./cmd/cupid
# The data directory, owned by the user the server runs as (distroless's
# nonroot, uid 65532), so the volume starts writable.
RUN mkdir -p /out/data && chown 65532:65532 /out/data

# Run: no shell, no package manager, a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/cupid /usr/local/bin/cupid
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME ["/data"]
EXPOSE 7070
ENTRYPOINT ["/usr/local/bin/cupid"]
# Every interface of the container (:7070), which a loopback address would
# not let the published port reach; so auth is required, with the keys of
# the data volume (made on the first start).
CMD ["serve", "--addr", ":7070", "--data", "/data", "--server-keys-file", "/data/server-keys.yaml", "--init-keys"]
# Ready means the store takes durable writes (/readyz). There is no shell or
# curl in the image: the binary asks.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/cupid", "health"]
