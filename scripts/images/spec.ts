/**
 * The images a user deploys, defined once: `npm run images` assembles them from this (./rootfs.ts,
 * ./oci.ts), and the Dockerfiles users build with `docker build` are generated from it
 * (./dockerfile.ts; a test keeps infra/image/Dockerfile and infra/agent/Dockerfile equal to what it
 * renders). Both paths run the same assembly of the root file system, so they cannot drift: the
 * Dockerfile's build stage runs `images.ts rootfs`, and its final stage only adds the config below.
 * Decisions: docs/adr/0037-images-assembled-from-debian-files-and-node-from-npm.md.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** The platforms every image is built for (an image index holds one manifest each). */
export const ARCHES = ['amd64', 'arm64'] as const;
export type Arch = (typeof ARCHES)[number];

/**
 * Node.js options of every kubemaint process the image runs (serve, the executor, the CLI), and of
 * the CLI the benches and tests start as the image would. V8 sizes the young generation from the
 * host's memory, not the container's live set: on a 24 GiB host serve's grew to 128 MiB, most of its
 * resident memory, while its old space held 20–25 MiB (issue 34, ADR 0063). Two semi-spaces of 16 MiB
 * hold what a tick allocates and drops at a fraction of that, at no more CPU (BENCHMARKS.md).
 */
export const CLI_NODE_OPTIONS = ['--max-semi-space-size=16'];

/** Debian's release the shared libraries and tools come from. */
export const DEBIAN_SUITE = 'bookworm';

/** Where the files of an image come from; every path is one inside the image. */
export interface ImageSpec {
  /** The archive is `<name>-<version>.oci.tar`; the repository's last segment. */
  name: string;
  repository: string;
  title: string;
  description: string;
  /** The Dockerfile generated from this spec, relative to the repository. */
  dockerfile: string;
  /** Debian packages to take files from (their dependencies come along for the shared libraries). */
  debianPackages: string[];
  /** Executables copied from those packages, each with its shared-library closure. */
  debianBinaries: string[];
  /** busybox applets made as links to /usr/bin/busybox (the agent's shell and utilities). */
  busyboxApplets: string[];
  /** Node.js from the npm registry's `node-linux-<arch>` package, at /usr/local/bin/node. */
  node: boolean;
  /** Files of this repository: `from` is a path or a `*` pattern in one folder, `to` a folder in the image. */
  files: { from: string; to: string; mode?: number }[];
  /** Paths in their own layer, above the base (what changes with every commit). */
  appLayer: string[];
  /** V8's compiled code for the bundle, made at build time by the image's own node (ADR 0033). */
  compileCache?: { dir: string; warm: string };
  user: { name: string; uid: number; gid: number };
  env: Record<string, string>;
  workdir: string;
  entrypoint: string[];
  cmd: string[];
}

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Every chunk of the bundle imported once: a command imports its own only when it runs, so
 * `--version` alone would leave the executor's uncompiled. Runs with /app as the working folder.
 */
const WARM_BUNDLE =
  "const fs = require('node:fs'); Promise.all(fs.readdirSync('/app').filter((f) => f.endsWith('.mjs') && f !== 'cli.mjs').map((f) => import('/app/' + f))).then(() => process.exit(0))";

/** The utilities kubemaint-agent.sh calls besides its shell's built-ins (and curl, nsenter). */
export const AGENT_UTILITIES = [
  'awk',
  'cat',
  'cut',
  'date',
  'grep',
  'head',
  'od',
  'sed',
  'sleep',
  'tr',
];

export const IMAGES: ImageSpec[] = [
  {
    name: 'kubemaint',
    repository: 'ghcr.io/kubemaint/kubemaint',
    title: 'kubemaint',
    description:
      'kubemaint serve and the executor Job: the esbuild bundle of the CLI on Node.js 24',
    dockerfile: 'infra/image/Dockerfile',
    // util-linux provides nsenter: the `command` reboot method runs `nsenter -m/proc/1/ns/mnt -- <argv>`
    // to execute the configured host command in the host's mount namespace (the pod has hostPID).
    // libstdc++6 and libgcc-s1 are node's own shared libraries.
    debianPackages: ['libc6', 'libgcc-s1', 'libstdc++6', 'util-linux'],
    debianBinaries: ['/usr/bin/nsenter'],
    busyboxApplets: [],
    node: true,
    files: [
      // The CLI's ESM entry and its chunks (dependencies bundled): the image needs no node_modules.
      { from: 'dist/cli.mjs', to: '/app' },
      { from: 'dist/cli.mjs.map', to: '/app' },
      { from: 'dist/cli-chunk-*', to: '/app' },
      // The kubelet upgrade script (upgrade.method: kubeadm): the bundle reads it at /infra/upgrade,
      // where its source's relative path leads from /app (scripts/build.mjs).
      { from: 'infra/upgrade/*.sh', to: '/infra/upgrade' },
    ],
    appLayer: ['app', 'infra'],
    compileCache: { dir: '/app/.compile-cache', warm: WARM_BUNDLE },
    // Non-root by default, for everything that can run so (`kubemaint serve`, `kubemaint drain`). The
    // executor Job sets runAsUser: 0 itself, because neither reboot method works without root.
    user: { name: 'kubemaint', uid: 10001, gid: 10001 },
    env: { PATH, NODE_ENV: 'production', NODE_COMPILE_CACHE: '/app/.compile-cache' },
    workdir: '/app',
    entrypoint: ['node', '--enable-source-maps', ...CLI_NODE_OPTIONS, '/app/cli.mjs'],
    cmd: ['--help'],
  },
  {
    name: 'kubemaint-agent',
    repository: 'ghcr.io/kubemaint/kubemaint-agent',
    title: 'kubemaint-agent',
    description:
      "kubemaint's reporter DaemonSet: a POSIX shell script with busybox and curl (ADR 0003)",
    dockerfile: 'infra/agent/Dockerfile',
    // curl talks to the API server; nsenter is used only when SENTINEL_COMMAND is configured (and then
    // the DaemonSet must be privileged with hostPID: see infra/k8s/agent-daemonset.yaml).
    debianPackages: ['busybox-static', 'curl', 'util-linux'],
    debianBinaries: ['/usr/bin/curl', '/usr/bin/nsenter', '/bin/busybox'],
    busyboxApplets: ['sh', ...AGENT_UTILITIES],
    node: false,
    files: [{ from: 'infra/agent/kubemaint-agent.sh', to: '/usr/local/bin', mode: 0o555 }],
    appLayer: [],
    // Non-root by default; the DaemonSet also sets runAsNonRoot and a read-only root filesystem.
    user: { name: 'kubemaint', uid: 65532, gid: 65532 },
    env: { PATH },
    workdir: '/',
    entrypoint: ['/usr/local/bin/kubemaint-agent'],
    cmd: [],
  },
];

/** The file name a `files` entry lands under (the agent's script drops its `.sh`). */
export function targetName(spec: ImageSpec, file: string): string {
  return spec.name === 'kubemaint-agent' && file === 'kubemaint-agent.sh'
    ? 'kubemaint-agent'
    : file;
}

export function imageNamed(name: string): ImageSpec {
  const spec = IMAGES.find((image) => image.name === name);
  if (!spec)
    throw new Error(
      `no image named ${name}; the images are ${IMAGES.map((i) => i.name).join(', ')}`,
    );
  return spec;
}

/** The version every image is tagged with: package.json's. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(resolve(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The Node.js the repository pins (package-lock's `node` devDependency): the images run the same. */
export function nodeVersion(): string {
  const lock = JSON.parse(readFileSync(resolve(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const version = lock.packages['node_modules/node']?.version;
  if (!version)
    throw new Error('package-lock.json pins no `node` devDependency; run `npm install node@24`');
  return version;
}

export const SOURCE_URL = 'https://github.com/kubemaint/kubemaint';
export const LICENSE = 'Apache-2.0';

/** The OCI labels of an image (its config) and annotations (its manifests). */
export function labels(spec: ImageSpec, version: string, revision: string): Record<string, string> {
  return {
    'org.opencontainers.image.title': spec.title,
    'org.opencontainers.image.description': spec.description,
    'org.opencontainers.image.source': SOURCE_URL,
    'org.opencontainers.image.version': version,
    'org.opencontainers.image.revision': revision,
    'org.opencontainers.image.licenses': LICENSE,
  };
}
