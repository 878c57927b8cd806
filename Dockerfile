# syntax=docker/dockerfile:1
# The registry image: one image for both roles. The API is the default command; the worker runs
# `node dist/apps/worker/apps/worker/src/main.js` (see docker-compose.yml).

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: every dependency, then the Prisma client and the two apps ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts are skipped: the build needs none of them (prebuilt binaries come as optional packages),
# and Prisma's would try to download engine binaries that the registry does not use.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json nest-cli.json prisma.config.ts ./
COPY prisma ./prisma
COPY apps ./apps
COPY libs ./libs
RUN npm run build

# ---- production dependencies only ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=32768 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# The migrations are applied by the application at start (under a lock, so replicas migrate once).
COPY --chown=root:root prisma ./prisma
COPY --chown=root:root package.json ./
# The code stays owned by root and read-only to the process; only DATA_DIR is writable.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself: it stops taking requests and jobs, then exits 0.
# The V8 flags are package.json's config.nodeFlags (what `npm start` runs with; README, "Memory").
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=15", "dist/apps/api/apps/api/src/main.js"]
