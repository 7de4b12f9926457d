# One image, three roles: the command picks the API (default), the worker
# (`node --max-semi-space-size=32 dist/workers/main.js`) or the migrations (`node dist/scripts/migrate.js`); see
# docker-compose.yml. Built in two stages: TypeScript is compiled (and the workflow code bundled)
# in the first, the second holds the compiled code and production dependencies only.

# --- build: every dependency, the compiler, `npm run build` -> dist/ ---------------------------
FROM node:24-bookworm-slim AS build

# npm 11 honours package.json's `allowScripts`, so only the allowed install scripts run.
RUN npm install -g npm@11.19.1 && npm cache clean --force

WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY workflows workflows
COPY activities activities
COPY workers workers
COPY migrations migrations
COPY scripts scripts
# The console (issue 37): its sources and the typed client it calls the API with, bundled by the build.
COPY clients clients
COPY console console
RUN npm run build
# The native OCR engine's helper (native-tesseract.ts), against Debian's libtesseract: the runtime
# stage has the library, not the compiler, so it is built here and named by TESSERACT_HELPER.
RUN apt-get update && apt-get install -y --no-install-recommends g++ pkg-config libtesseract-dev \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p bin \
    && g++ -O2 -std=c++17 -o bin/tesseract-helper src/modules/recognition/engines/local/native/tesseract-helper.cpp \
       $(pkg-config --cflags --libs tesseract lept)

# --- runtime: compiled code + production dependencies, as the unprivileged `node` user --------
FROM node:24-bookworm-slim AS runtime

RUN npm install -g npm@11.19.1 && npm cache clean --force \
    && apt-get update && apt-get install -y --no-install-recommends libtesseract5 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# glibc's allocator: two arenas instead of eight a core, and blocks of 128 KiB and more always mapped
# apart (returned to the system once freed): the recognizer's large buffers (photos, onnxruntime's
# working memory) otherwise stay with the process after use (decisions.md D215).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    TESSERACT_HELPER=/app/bin/tesseract-helper \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false

COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Owned by root: the process below cannot change its own code. dist/workflow-bundle.js is the
# prebuilt workflow bundle the worker loads instead of bundling at start.
COPY --from=build /app/dist dist
# The local recognizer's default OCR model (models/tesseract/eng-fast/README.md), found from the app root.
COPY models models
COPY --from=build /app/bin/tesseract-helper bin/tesseract-helper

USER node

EXPOSE 3000

# Health checks live in docker-compose.yml, one per role: an image-level HEALTHCHECK
# would probe the API port in the worker and migrate containers too.
CMD ["node", "dist/src/bin/api.js"]
