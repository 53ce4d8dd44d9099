# syntax=docker/dockerfile:1
# The API's production image (docker-compose.yml builds it; README "Running in production"):
# compiled JavaScript on Node 24, no TypeScript loader, no dev dependencies, a non-root user.
#   docker build -t pdi .
#   docker run -p 8000:8000 -v pdi-data:/data pdi
# Node 24 is pinned to the release CI runs (scripts/with-node.sh); moving it is a reviewed change.
ARG NODE_VERSION=24.21.0

# Compiles dist/ (npm run build) with every dependency, the compiler among them.
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/
COPY api api
COPY cli cli
COPY ingest ingest
COPY index-mappings index-mappings
COPY lib lib
RUN npm run build

# The runtime dependencies alone. Native addons (better-sqlite3) are built here, where the full image
# has python3, make and g++, for the same Node and glibc as the runtime stage.
FROM node:${NODE_VERSION}-bookworm AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PDI_DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8000
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY package.json package-lock.json ./
COPY --from=build /app/dist dist
# What the compiled code reads by path from the project root (lib/paths.ts): the OpenAPI document
# served at /openapi.json and /docs, the demo corpus (loaded when PDI_DEMO=1 and the index is empty),
# and the CPV table and lexicon (lib/vocabulary/), with their licences.
COPY docs/openapi.json docs/
COPY data/demo data/demo
COPY data/vocabulary/cpv.tsv data/vocabulary/lexicon-en-el.tsv data/vocabulary/README.md data/vocabulary/
COPY bin bin
# /data: accounts, ingest state, documents, embedded index. /models: an embedding model folder
# (PDI_MODEL_DIR). Both owned by the unprivileged user that the base image provides (node, uid 1000).
RUN mkdir -p /data /models && chown node:node /data /models \
 && ln -s /app/bin/pdi.js /usr/local/bin/pdi
USER node
VOLUME ["/data", "/models"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["node", "bin/healthcheck.js"]
CMD ["node", "dist/api/server.js"]
