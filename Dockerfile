# modeld container image: build with the official Swift image, run on Debian slim as a
# non-root user. Data lives in two volumes: /srv/modeld/models (catalog + model files, may be
# shared by replicas) and /srv/modeld/data (events, access log, admin token; per replica or shared).
#
#   docker build -t modeld .
#   docker run -p 8080:8080 -e MODELD_PUBLIC_BASE_URL=https://models.example.com \
#              -e MODELD_INSTANCE_ID=modeld-1 -v models:/srv/modeld/models -v data:/srv/modeld/data modeld
#
# Container host names change on every start, so the instance id (in event segment and access
# log file names, SPEC §5) is set with MODELD_INSTANCE_ID: give each replica its own.

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libcurl4-openssl-dev libssl-dev zlib1g-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# SwiftPM checks every target's folder when it loads the manifest, so Tests/ comes along.
COPY Package.* ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product modeld \
    && swift build -c release --static-swift-stdlib --product modelctl \
    && bin="$(swift build -c release --show-bin-path)" \
    && install -D -s -m 0755 "$bin/modeld" /out/modeld \
    && install -D -s -m 0755 "$bin/modelctl" /out/modelctl

FROM ${RUNTIME_IMAGE} AS runtime
RUN apt-get update \
    && apt-get install -y --no-install-recommends libcurl4 libssl3 zlib1g ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /srv/modeld --shell /usr/sbin/nologin modeld \
    && install -d -o modeld -g modeld /srv/modeld /srv/modeld/models /srv/modeld/data
WORKDIR /srv/modeld
COPY config ./config
COPY --chown=modeld:modeld models ./models

# The shipped config's relative paths (models, data, data/admin.token) resolve under WORKDIR.
ENV MODELD_INSTANCE_ID=modeld-1
USER 10001:10001
VOLUME ["/srv/modeld/models", "/srv/modeld/data"]
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["modelctl", "health"]
ENTRYPOINT ["modeld"]
CMD ["--config", "/srv/modeld/config/modeld.json"]

# Smoke tests without the Swift image (scripts/docker-smoke.sh): binaries built on the host with
# --static-swift-stdlib into dist/, selected with --target prebuilt. BuildKit skips this stage
# in normal builds.
FROM runtime AS prebuilt
COPY dist/modeld dist/modelctl /usr/local/bin/

FROM runtime
COPY --from=build /out/modeld /out/modelctl /usr/local/bin/
