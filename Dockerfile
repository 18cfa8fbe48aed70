# Cupid in a small image: a static binary on distroless, run as a non-root
# user.
#
#   docker build -t cupid .
#   docker run -p 7070:7070 -v cupid-data:/data cupid
#
# The store is the embedded SQLite database in the /data volume; give
# --store postgres://… to keep state in PostgreSQL instead. A configuration
# file can be mounted and named with --config.

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
# The server listens on every interface of the container (:7070), which a
# loopback address would not let the published port reach. Note that a
# non-loopback address will soon require authentication to be configured:
# when it does, add the auth settings to the configuration file (or the
# flags) given here.
CMD ["serve", "--addr", ":7070", "--data", "/data"]
