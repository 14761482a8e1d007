# MarginCMS as an image: a thin wrapper around what test/process/production-install.test.ts runs.
# NOT BUILT OR RUN HERE: the machine this repository is developed on has no container engine and
# no image registry. What the test runs instead, outside a container, is this file's own steps:
# the package `npm pack` writes from `npm run build`, installed by scripts/production-install.sh
# (`npm ci --omit=dev`), then this CMD and this HEALTHCHECK, and compose.yaml's commands.
#
#   docker build -t margin-cms .
#   docker run -p 8080:8080 -v margin-data:/data margin-cms    # embedded PGlite in /data
#   docker run … -e DATABASE_URL=postgres://… -e JWT_SECRET=… margin-cms node dist/migrate.js
ARG NODE_IMAGE=node:22-bookworm-slim

# Stage 1: every dependency (esbuild, Vite; patch-package patches postgres, which is bundled),
# the build, and the package.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY patches/ patches/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm pack --pack-destination /tmp && mv /tmp/margin-cms-*.tgz /tmp/margin-cms.tgz

# Stage 2: the package and its production dependencies only, run as the image's `node` user.
FROM ${NODE_IMAGE} AS runtime
COPY --from=build /tmp/margin-cms.tgz /src/package-lock.json /src/scripts/production-install.sh /tmp/install/
RUN /tmp/install/production-install.sh /tmp/install/margin-cms.tgz /tmp/install/package-lock.json /app \
  && npm cache clean --force && rm -rf /tmp/install \
  && mkdir /data && chown node:node /data
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
# glibc's malloc as scripts/start-server.sh sets it for `make start` and `npm start`: two arenas,
# and blocks of 1 MiB or more mapped on their own, so that memory libvips frees while images are
# resized goes back to the system instead of staying in per-thread arenas (bench/NOTES.md,
# "parallel uploads": twenty 15 MB uploads peak at idle + 247 MiB instead of + 381 MiB).
ENV MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=1048576
USER node
VOLUME /data
EXPOSE 8080
# /readyz answers 503 from SIGTERM on, for SHUTDOWN_DELAY_SECONDS, while the server still serves.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 8080}/api/v1/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and gets the SIGTERM itself (graceful shutdown after
# SHUTDOWN_DELAY_SECONDS, bounded by SHUTDOWN_TIMEOUT_SECONDS; give `docker stop -t` more than both).
CMD ["node", "dist/main.js"]
