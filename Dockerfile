# syntax=docker/dockerfile:1
# Cagnotte: one image for every role of the split deployment (docs/deployment.md).
#   docker build -t cagnotte .
#   docker run --env-file deploy.env -e ROLE=command-api cagnotte       (or query-api, projectors, embedded)
#   docker run --env-file deploy.env cagnotte cli projections status    (the operator CLI)
# The TypeScript workspace is bundled with esbuild into dist/<role>.cjs (scripts/bundle.mjs): the image runs plain
# node, with the production dependencies only. `pnpm deploy:check` lints this file in CI (Docker does not run there).

# ---- base: Node, pnpm (pinned through corepack) and the workspace's manifests, for both installs below
FROM node:22.23.3-bookworm-slim AS base
ENV PNPM_HOME=/pnpm \
    COREPACK_ENABLE_DOWNLOAD_PROMPT=0 \
    CI=true
RUN corepack enable pnpm && corepack prepare pnpm@10.34.9 --activate
WORKDIR /app
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY command-api/package.json command-api/
COPY domain/package.json domain/
COPY event-schemas/package.json event-schemas/
COPY infra/package.json infra/
COPY infra/sandbox-ledger/package.json infra/sandbox-ledger/
COPY projectors/package.json projectors/
COPY query-api/package.json query-api/
COPY read-models/package.json read-models/
COPY scripts/package.json scripts/
COPY sdk/package.json sdk/

# ---- build: every dependency from the lockfile, then the bundles
FROM base AS build
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm install --frozen-lockfile --store-dir /pnpm/store
COPY . .
RUN node scripts/bundle.mjs

# ---- prod-deps: the production dependencies alone, installed fresh at the same path (the bundles name them by path)
FROM base AS prod-deps
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    pnpm install --prod --frozen-lockfile --store-dir /pnpm/store

# ---- runtime: node, production node_modules, the bundles; nothing writable by the service
FROM node:22.23.3-bookworm-slim AS runtime
ENV NODE_ENV=production \
    APP_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=prod-deps /app ./
COPY --from=build /app/dist ./dist
COPY --from=build /app/scripts/bundle.mjs ./scripts/bundle.mjs
COPY scripts/docker ./scripts/docker
# Fails the build when a bundle requires a package that only a dev install has.
RUN node scripts/bundle.mjs --verify
# The node user of the base image, by number so an orchestrator can check it is not root (runAsNonRoot).
USER 1000:1000
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "scripts/docker/healthcheck.mjs"]
ENTRYPOINT ["node", "scripts/docker/role.mjs"]
