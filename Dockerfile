# persona-refine: one stateless instance. See docs/deploy.md for the reference topology.
# Checked without a container engine by test/deploy/deploy-files.test.ts (start command, env names).

FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary can be fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/package.json
COPY studio/package.json studio/package.json
RUN npm ci
COPY . .
RUN node scripts/build-if-needed.mjs && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/personas.sqlite \
    LOG_LEVEL=info \
    SHUTDOWN_GRACE_MS=25000
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/studio/dist ./studio/dist
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: the process is PID 1 and receives SIGTERM for a graceful shutdown.
CMD ["node", "dist/server.js"]
