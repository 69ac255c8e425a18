/**
 * The Dockerfile of an image, rendered from its spec (`npm run images -- dockerfiles` writes them;
 * test/unit/images/dockerfiles.test.ts fails when a committed one differs). Its build stage runs the
 * same assembly as `npm run images` on the builder's own platform (files of the target's architecture
 * need no emulation to be extracted); the final stage is those files and the spec's config, nothing else.
 */
import { labels, packageVersion, type ImageSpec } from './spec.js';

const json = (value: unknown): string => JSON.stringify(value);

export function renderDockerfile(spec: ImageSpec): string {
  const version = packageVersion();
  const tag = `${spec.repository}:${version}`;
  const build = spec.files.some((file) => file.from.startsWith('dist/')) ? ' && npm run build' : '';
  const env = Object.entries(spec.env).map(([key, value]) => `${key}=${json(value)}`);
  const label = Object.entries(labels(spec, version, '$REVISION')).map(
    ([key, value]) => `${key}=${json(value)}`,
  );
  return `# GENERATED from scripts/images/spec.ts by \`npm run images -- dockerfiles\`: edit the spec, not this
# file (a test fails when they differ). ${spec.description}.
# Build from the repository root (\`npm run images\` builds the same files without Docker):
#   docker build -f ${spec.dockerfile} --build-arg REVISION=$(git rev-parse HEAD) -t ${tag} .
#   docker buildx build --platform linux/amd64,linux/arm64 -f ${spec.dockerfile} -t ${tag} .
# The build stage runs on the builder's platform and assembles the target's files (scripts/images).

FROM --platform=$BUILDPLATFORM node:24-bookworm-slim AS build
RUN apt-get update \\
 && apt-get install -y --no-install-recommends binutils ca-certificates mmdebstrap qemu-user-static \\
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN npm ci --ignore-scripts --no-audit --no-fund${build}
ARG TARGETARCH
RUN node_modules/.bin/tsx scripts/images/main.ts rootfs ${spec.name} --arch "$TARGETARCH" --out /rootfs

FROM scratch
COPY --from=build /rootfs/ /
USER ${spec.user.uid}:${spec.user.gid}
WORKDIR ${spec.workdir}
ENV ${env.join(' \\\n    ')}
ENTRYPOINT ${json(spec.entrypoint)}
${spec.cmd.length > 0 ? `CMD ${json(spec.cmd)}\n` : ''}ARG REVISION=unknown
LABEL ${label.join(' \\\n      ')}
`;
}
