# Quarry gateway image: type-checked and compiled in a build stage, run as plain JavaScript by a non-root
# user with production dependencies only. Server mode needs CLICKHOUSE_URL; without it the gateway runs
# the embedded engine with its data in the /data volume.

# ---- build: install everything, type check and compile, then drop the dev dependencies
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# Everything tsconfig.json includes (see .dockerignore for what stays out).
COPY . .
# One tsc run type checks the whole project (tests included) and writes the JavaScript.
RUN npx tsc --noEmit false --outDir build \
  && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: compiled server and queries, the SQL templates, production node_modules
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    QUARRY_DATA_DIR=/data \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build --chown=root:root /src/package.json ./
COPY --from=build --chown=root:root /src/node_modules ./node_modules
COPY --from=build --chown=root:root /src/build/server ./server
COPY --from=build --chown=root:root /src/build/queries ./queries
COPY --from=build --chown=root:root /src/sql ./sql
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# /ready answers 200 only while the engine answers; the slim image has no curl, so Node's fetch asks.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "server/main.js"]
