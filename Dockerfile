# queuesim in a container: build with the Swift toolchain, run on a slim Debian with libyaml.
#
#   docker build -t queuesim .
#   docker run --rm -v "$PWD/reports:/opt/queuesim/reports" queuesim run scenarios/launch.yaml --clock virtual
#
# scripts/check-dockerfile runs this file's build command outside Docker and checks that the
# binary needs no library the runtime stage lacks (CI runs it).

FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libyaml-dev zlib1g-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest first, so the dependency download is cached while the sources change.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product queuesim --static-swift-stdlib

FROM debian:bookworm-slim
# libyaml is the one library the binary loads besides glibc, libstdc++ and zlib (in the base
# image): TLS is swift-nio-ssl's BoringSSL, linked in, for iOS visitors' resuming client too.
# ca-certificates is the trust store for TLS endpoints (/etc/ssl/certs/ca-certificates.crt).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libyaml-0-2 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/.build/release/queuesim /usr/local/bin/queuesim
COPY scenarios /opt/queuesim/scenarios
WORKDIR /opt/queuesim
# Reports go to /opt/queuesim/reports: mount a volume there to keep them.
ENTRYPOINT ["queuesim"]
CMD ["run", "scenarios/launch.yaml", "--clock", "virtual"]
