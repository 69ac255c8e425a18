/**
 * `npm run test:node`: the tests on real VM nodes (test/node/). Installs what the machine lacks
 * (deps.sh), builds the project's images (`npm run images`, amd64) unless KUBEMAINT_IMAGES_DIR names a
 * folder of archives already built, starts a fresh control plane of its own (.kubemaint/real-node-test/
 * cluster) and two VMs whose disk image carries those images already imported (.kubemaint/real-node-test/
 * nodes; the disk image is cached by the images' digests) — kubemaint-vm-2 a kubeadm node one minor
 * behind, with the test repository served as pkgs.k8s.io from here (test-nodes.ts) — runs the tests one
 * file at a time, and stops everything whatever the outcome. Arguments are passed on to node --test (e.g. a file list).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { down, up } from '../real-cluster/control-plane.js';
import { RealClusterError } from '../real-cluster/errors.js';
import { withLock } from '../real-cluster/lock.js';
import { DEFAULT_KUBERNETES_VERSION, parseKubernetesVersion } from '../real-cluster/versions.js';
import { nodesDown, nodesUp } from './nodes.js';
import { servePkgs, type PkgsServer } from './pkgs-server.js';
import { buildTestNodes, testNodes } from './test-nodes.js';

const root = resolve('.kubemaint/real-node-test');
const clusterDir = join(root, 'cluster');
const nodesDir = join(root, 'nodes');
/** Every request the nodes made of pkgs.k8s.io (the test server), one `STATUS PATH` a line. */
const pkgsLog = join(root, 'pkgs-requests.log');
const say = (line: string) => process.stderr.write(`${line}\n`);
const files = process.argv.slice(2);
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

/** The CLI and agent image archives: KUBEMAINT_IMAGES_DIR's, else built by `npm run images`. */
function imageArchives(): string[] {
  let folder = process.env['KUBEMAINT_IMAGES_DIR'];
  if (!folder) {
    const scripts = (
      JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    if (!scripts['images']) {
      throw new RealClusterError(
        'the nodes need the CLI and agent images, and this checkout has no `npm run images`: set KUBEMAINT_IMAGES_DIR to a folder of kubemaint-*.oci.tar archives',
      );
    }
    folder = resolve('.kubemaint/images');
    const started = Date.now();
    say(`building the images (npm run images -- build --out ${folder} --platform amd64)…`);
    const built = spawnSync(
      'npm',
      ['run', '--silent', 'images', '--', 'build', '--out', folder, '--platform', 'amd64'],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    if (built.status !== 0)
      throw new RealClusterError(`npm run images failed (exit ${built.status})`);
    say(`images built in ${seconds(started)}`);
  }
  const archives = existsSync(folder)
    ? readdirSync(folder)
        .filter((f) => /^kubemaint(-agent)?-.+\.oci\.tar$/.test(f))
        .map((f) => join(folder, f))
    : [];
  if (archives.length < 2) {
    throw new RealClusterError(
      `${folder} holds ${archives.length} of the 2 image archives (kubemaint-<version>.oci.tar, kubemaint-agent-<version>.oci.tar): build them with npm run images`,
    );
  }
  return archives;
}

const deps = spawnSync('bash', ['scripts/real-node/deps.sh'], { stdio: 'inherit' });
if (deps.status !== 0) process.exit(1);
let code = 1;
// Ctrl-C reaches the test run too (same process group); VMs and control plane must not outlive it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void nodesDown(nodesDir)
      .then(() => down(clusterDir))
      .finally(() => process.exit(130));
  });
}
mkdirSync(root, { recursive: true });
await withLock(join(root, 'run.lock'), say, async () => {
  const started = Date.now();
  let pkgs: PkgsServer | undefined;
  try {
    const images = imageArchives();
    const version = parseKubernetesVersion(
      process.env['KUBEMAINT_K8S_VERSION'] ?? DEFAULT_KUBERNETES_VERSION,
    );
    const cluster = await up({ version, dir: clusterDir, fresh: true, say });
    say(`control plane ${cluster.version} up after ${seconds(started)} (including any build)`);
    const nodesStarted = Date.now();
    // The packages of both versions, their repository and the disks: cached per version.
    const { repo, tls } = await buildTestNodes(version, images, say);
    writeFileSync(pkgsLog, '');
    pkgs = await servePkgs(repo.root, tls, 0, (path, status) =>
      appendFileSync(pkgsLog, `${status} ${path}\n`),
    );
    await nodesUp({
      nodes: testNodes(version).nodes,
      dir: nodesDir,
      clusterDir,
      images,
      readyTimeoutS: 3000,
      packages: { repo, caCert: tls.caCert, port: pkgs.port },
      say,
    });
    say(`2 real nodes Ready after ${seconds(nodesStarted)} (including any build)`);
    code = await new Promise<number>((done) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--test',
          '--test-reporter=spec',
          '--test-concurrency=1',
          ...(files.length > 0 ? files : ['test/node/**/*.test.ts']),
        ],
        {
          stdio: 'inherit',
          env: {
            ...process.env,
            KUBEMAINT_REAL_KUBECONFIG: cluster.kubeconfig,
            KUBEMAINT_REAL_NODES_DIR: nodesDir,
            KUBEMAINT_NODE_IMAGES: images.join(':'),
            KUBEMAINT_PKGS_REQUESTS: pkgsLog,
          },
        },
      );
      child.on('close', (exit) => done(exit ?? 1));
    });
  } catch (error) {
    if (!(error instanceof RealClusterError)) throw error;
    say(`test:node: ${error.message}`);
  } finally {
    await pkgs?.close();
    await nodesDown(nodesDir);
    await down(clusterDir);
    say(`test:node: ${code === 0 ? 'passed' : 'failed'} in ${seconds(started)}`);
  }
});
process.exit(code);
