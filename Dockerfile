# One image, three roles: the command picks `npm run start:api`, `npm run start:worker`
# or `npm run migrate` (see docker-compose.yml). TypeScript runs through tsx at runtime,
# so there is no build stage.
FROM node:20-bookworm-slim

# Node 20 ships npm 10, which ignores package.json's `allowScripts` and would run every
# dependency's install scripts. Pin the npm the project uses so only the allowed ones run.
RUN npm install -g npm@11.19.1 \
 && npm cache clean --force

WORKDIR /app

# Dependencies before sources, so this layer is rebuilt only when the manifests change.
# A full install, dev dependencies included, kept simple on purpose.
# NODE_ENV is set only after this step: NODE_ENV=production would make `npm ci` skip them.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund \
 && npm cache clean --force

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false

# Sources stay owned by root, so the unprivileged process below cannot change its own code.
# tsx keeps its compile cache in /tmp, which stays writable.
COPY . .

USER node

EXPOSE 3000

# Health checks live in docker-compose.yml, one per role: an image-level HEALTHCHECK
# would probe the API port in the worker and migrate containers too.
CMD ["npm", "run", "start:api"]
