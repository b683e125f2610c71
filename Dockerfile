# Tributary server image: the built-in pipelines baked in at /models (mount a volume there to serve
# your own repository). Build: docker build -t tributary .   Run: docker run -p 8000-8002:8000-8002 tributary
# docs/deploy.md explains each choice below.

FROM node:20-bookworm-slim AS build
# isolated-vm is a native addon: when no prebuilt binary matches, node-gyp compiles it. The compiler
# stays in this stage.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Dependencies first, so a source edit does not reinstall them. --ignore-scripts here because the
# project's postinstall builds models from sources not copied yet; `npm rebuild` runs the
# dependencies' install scripts once they are. ONNXRUNTIME_NODE_INSTALL=skip: the CPU binaries ship
# in onnxruntime-node, its install script only fetches GPU ones (package.json's allowScripts says the
# same, but this image's npm 10 does not read it).
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm rebuild \
 && node --import tsx scripts/build-pipeline-models.ts \
 && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
# tini as PID 1: the server installs its SIGTERM handler only once the repository has loaded, and
# the kernel drops a signal without a handler sent to PID 1, so a pod stopped while loading would
# wait for SIGKILL. tini forwards SIGTERM to node (drain) and reaps any child.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/src ./src
COPY --from=build /app/backends ./backends
COPY --from=build /app/types ./types
# TypeScript models resolve their packages from /app/node_modules wherever the repository lives.
COPY --from=build /app/pipelines /models
RUN ln -s /app/bin/tributary.js /usr/local/bin/tributary
# The node image's unprivileged user (uid 1000); the code and the baked repository stay root-owned,
# so the server cannot rewrite them.
USER node
EXPOSE 8000 8001 8002
# No curl in the slim image: node's fetch. 200 only once every model loaded (--strict-readiness)
# and until a SIGTERM starts the drain.
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8000/v2/health/ready').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# Exec form: tini's child is node itself (no shell in between to swallow SIGTERM).
CMD ["tributary", "serve", "--model-repository", "/models", "--exit-timeout-secs", "30"]
