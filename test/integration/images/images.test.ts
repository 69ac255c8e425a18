/**
 * The images a user deploys, as `npm run images` builds them: an index with linux/amd64 and
 * linux/arm64, the non-root user, entrypoint and labels as skopeo and umoci read them, the CLI
 * answering `--version` and `executor --help` on both platforms (arm64 under qemu-user), nsenter
 * present, V8's compile cache taken by both users that run the image, no shell in the CLI image, the
 * agent image marking its node on a real API over TLS with curl, the SBOMs, the budgets, and the
 * archives imported into Debian's containerd under the names the chart uses and run there with runc.
 * Needs root (chroot, containerd): CI runs as root; scripts/test-deps.sh installs the tools.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BUDGET_MIB } from '../../../scripts/images/build.js';
import {
  AGENT_UTILITIES,
  ARCHES,
  IMAGES,
  packageVersion,
  REPO_ROOT,
  type Arch,
} from '../../../scripts/images/spec.js';
import { startSimCluster, type AgentCluster } from '../agent/sim-cluster.js';
import {
  buildImages,
  runIn,
  runInAsync,
  tool,
  unpack,
  type Built,
  type Ran,
  type Unpacked,
} from './image-harness.js';

const VERSION = packageVersion();
const CLI = IMAGES.find((i) => i.name === 'kubemaint')!;
const AGENT = IMAGES.find((i) => i.name === 'kubemaint-agent')!;
const MiB = 1024 * 1024;

assert.equal(
  process.getuid?.(),
  0,
  'the image tests run the images with chroot and containerd: run them as root',
);

let built: Built;
const archive = (name: string) => built.images.find((i) => i.name === name)!.file;
const unpacked = new Map<string, Unpacked>();
const image = (name: string, arch: Arch): Unpacked => {
  const key = `${name}/${arch}`;
  if (!unpacked.has(key)) unpacked.set(key, unpack(archive(name), arch));
  return unpacked.get(key)!;
};

before(() => {
  built = buildImages();
});
after(() => {
  for (const { dir } of unpacked.values()) rmSync(dir, { recursive: true, force: true });
});

describe('npm run images: the archives', () => {
  for (const spec of IMAGES) {
    it(`${spec.name}: an index of linux/amd64 and linux/arm64, named ${spec.repository}:${VERSION} for ctr import`, () => {
      const file = archive(spec.name);
      assert.equal(file, join(built.out, `${spec.name}-${VERSION}.oci.tar`));
      const top = JSON.parse(tool(['tar', '-xOf', file, 'index.json'])) as {
        manifests: { mediaType: string; annotations: Record<string, string> }[];
      };
      assert.equal(top.manifests.length, 1);
      assert.equal(top.manifests[0]!.mediaType, 'application/vnd.oci.image.index.v1+json');
      assert.deepEqual(top.manifests[0]!.annotations, {
        'org.opencontainers.image.ref.name': VERSION,
        'io.containerd.image.name': `${spec.repository}:${VERSION}`,
      });
      const index = JSON.parse(tool(['skopeo', 'inspect', '--raw', `oci-archive:${file}`])) as {
        manifests: { platform: { os: string; architecture: string } }[];
      };
      assert.deepEqual(
        index.manifests.map((m) => `${m.platform.os}/${m.platform.architecture}`),
        ARCHES.map((arch) => `linux/${arch}`),
      );
    });

    for (const arch of ARCHES) {
      it(`${spec.name} ${arch}: skopeo reads its user, entrypoint and labels`, () => {
        const config = JSON.parse(
          tool([
            'skopeo',
            `--override-arch=${arch}`,
            'inspect',
            '--config',
            `oci-archive:${archive(spec.name)}`,
          ]),
        ) as {
          architecture: string;
          config: { User: string; Entrypoint: string[]; Labels: Record<string, string> };
        };
        assert.equal(config.architecture, arch);
        assert.equal(config.config.User, `${spec.user.uid}:${spec.user.gid}`);
        assert.notEqual(spec.user.uid, 0);
        assert.deepEqual(config.config.Entrypoint, spec.entrypoint);
        const revision = tool(['git', '-C', REPO_ROOT, 'rev-parse', 'HEAD']).trim();
        assert.equal(
          config.config.Labels['org.opencontainers.image.source'],
          'https://github.com/kubemaint/kubemaint',
        );
        assert.equal(config.config.Labels['org.opencontainers.image.version'], VERSION);
        assert.equal(config.config.Labels['org.opencontainers.image.revision'], revision);
        assert.equal(config.config.Labels['org.opencontainers.image.licenses'], 'Apache-2.0');
      });
    }

    it(`${spec.name}: within its budget of ${BUDGET_MIB[spec.name]} MiB compressed per platform`, () => {
      const platforms = built.images.find((i) => i.name === spec.name)!.platforms;
      assert.deepEqual(
        platforms.map((p) => p.arch),
        [...ARCHES],
      );
      for (const p of platforms)
        assert.ok(
          p.compressedBytes <= BUDGET_MIB[spec.name]! * MiB,
          `${p.arch}: ${p.compressedBytes}`,
        );
    });
  }

  it('the SBOMs list what each image holds: the bundled npm packages, Node.js and the Debian packages per platform', () => {
    const components = (name: string) =>
      (
        JSON.parse(readFileSync(built.images.find((i) => i.name === name)!.sbom, 'utf8')) as {
          components: { name: string; version: string; purl?: string }[];
        }
      ).components;
    const cli = components('kubemaint');
    const names = cli.map((c) => c.name);
    assert.ok(names.includes('@kubernetes/client-node'), 'the bundled Kubernetes client');
    assert.ok(names.includes('node'), 'Node.js');
    assert.ok(!names.includes('eslint'), 'a devDependency the bundle does not hold');
    for (const arch of ARCHES) {
      assert.ok(
        cli.some(
          (c) => c.purl?.startsWith('pkg:deb/debian/libc6@') && c.purl.includes(`arch=${arch}`),
        ),
        arch,
      );
      assert.ok(
        cli.some(
          (c) =>
            c.purl?.startsWith('pkg:deb/debian/util-linux@') && c.purl.includes(`arch=${arch}`),
        ),
        arch,
      );
    }
    const agent = components('kubemaint-agent').map((c) => c.name);
    for (const pkg of ['busybox-static', 'curl', 'libcurl4', 'libssl3', 'util-linux'])
      assert.ok(agent.includes(pkg), pkg);
    assert.ok(!agent.includes('node'));
  });
});

describe('the CLI image (serve and the executor Job)', () => {
  for (const arch of ARCHES) {
    describe(arch, () => {
      const cli = () => image('kubemaint', arch);
      const entrypoint = (args: string[]) => [...CLI.entrypoint, ...args];

      it(`holds ${arch}'s node${arch === 'arm64' ? ' (run under qemu-user)' : ''}`, () => {
        const header = tool(['readelf', '--file-header', join(cli().rootfs, 'usr/local/bin/node')]);
        assert.match(
          header,
          arch === 'amd64' ? /Machine:\s+Advanced Micro Devices X86-64/ : /Machine:\s+AArch64/,
        );
      });

      // V8's compile cache is one folder per uid (ADR 0037): each run shows whether its user's was read.
      const cacheRead = (ran: Ran, module: RegExp) => {
        const log = `${ran.stdout}${ran.stderr}`;
        assert.match(log, module, log);
        assert.doesNotMatch(log, /rejected|permission denied|Cannot create/i, log);
      };

      it('runs as its user (serve’s) with its entrypoint: --version, from the compile cache', () => {
        assert.equal(cli().process.user.uid, CLI.user.uid);
        assert.equal(cli().process.user.gid, CLI.user.gid);
        const ran = runIn(cli(), entrypoint(['--version']), {
          env: { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
        });
        assert.equal(ran.code, 0, ran.stderr);
        assert.equal(ran.stdout.trim(), VERSION);
        cacheRead(ran, /V8 code cache for ESM file:\/\/\/app\/cli\.mjs was accepted/);
      });

      it('executor --help as root, as the executor Job runs it, from the compile cache', () => {
        const ran = runIn(cli(), entrypoint(['executor', '--help']), {
          uid: 0,
          env: { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
        });
        assert.equal(ran.code, 0, ran.stderr);
        assert.match(ran.stdout, /Usage: kubemaint executor/);
        cacheRead(ran, /V8 code cache for ESM file:\/\/\/app\/cli-chunk-\w+\.mjs was accepted/);
      });

      it('nsenter is there for the command reboot method', () => {
        const ran = runIn(cli(), ['nsenter', '--version']);
        assert.equal(ran.code, 0, ran.stderr);
        assert.match(ran.stdout, /nsenter from util-linux/);
      });
    });
  }

  it('holds no shell, no package manager, and only root-owned files nobody else may write', () => {
    const root = image('kubemaint', 'amd64').rootfs;
    for (const path of [
      'usr/bin/sh',
      'usr/bin/bash',
      'usr/bin/dash',
      'usr/bin/apt',
      'usr/bin/dpkg',
      'usr/bin/busybox',
    ]) {
      assert.equal(existsSync(join(root, path)), false, path);
    }
    // /dev is the test's (unpack makes the devices a runtime would mount); /tmp is 1777 on purpose.
    const writable = tool([
      'find',
      root,
      '-xdev',
      '-path',
      `${root}/dev`,
      '-prune',
      '-o',
      '-perm',
      '-o+w',
      '-not',
      '-type',
      'l',
      '-not',
      '-path',
      `${root}/tmp`,
      '-print',
    ]);
    assert.equal(writable.trim(), '');
    const notRoot = tool([
      'find',
      root,
      '-xdev',
      '(',
      '-not',
      '-uid',
      '0',
      '-o',
      '-not',
      '-gid',
      '0',
      ')',
    ]);
    assert.equal(notRoot.trim(), '');
  });
});

describe('the agent image', () => {
  let cluster: AgentCluster;
  before(async () => (cluster = await startSimCluster()));
  after(() => cluster.stop());

  it('its shell is busybox, with the utilities kubemaint-agent.sh calls', () => {
    const root = image('kubemaint-agent', 'amd64').rootfs;
    assert.equal(readlinkSync(join(root, 'usr/bin/sh')), 'busybox');
    for (const util of AGENT_UTILITIES) {
      assert.equal(readlinkSync(join(root, 'usr/bin', util)), 'busybox', util);
    }
    assert.ok(lstatSync(join(root, 'usr/local/bin/kubemaint-agent')).mode & 0o111);
  });

  it('marks its node over TLS with the service-account token, as its user (amd64)', async () => {
    const agent = image('kubemaint-agent', 'amd64');
    const sa = join(agent.rootfs, 'tmp/sa');
    const host = join(agent.rootfs, 'tmp/host/var/run');
    mkdirSync(sa, { recursive: true });
    mkdirSync(host, { recursive: true });
    writeFileSync(join(sa, 'token'), cluster.token);
    writeFileSync(join(sa, 'ca.crt'), cluster.caPem);
    writeFileSync(join(host, 'reboot-required'), '*** System restart required ***\n');
    writeFileSync(join(host, 'reboot-required.pkgs'), 'linux-image-6.1.0-28-amd64\nlibc6\n');
    for (const dir of [
      sa,
      join(agent.rootfs, 'tmp/host'),
      join(agent.rootfs, 'tmp/host/var'),
      host,
    ])
      chmodSync(dir, 0o755);
    cluster.setKubemaint('node-3', { labels: {}, annotations: {} });
    const ran = await runInAsync(agent, AGENT.entrypoint, {
      env: {
        NODE_NAME: 'node-3',
        HOST_ROOT: '/tmp/host',
        SA_DIR: '/tmp/sa',
        API_SERVER: cluster.url,
        AGENT_ITERATIONS: '1',
      },
    });
    assert.equal(ran.code, 0, `${ran.stdout}${ran.stderr}`);
    assert.match(ran.stdout, /reboot-required marked/);
    const node = cluster.node('node-3');
    assert.equal(node.labels['kubemaint.io/reboot-required'], 'true');
    assert.equal(
      node.annotations['kubemaint.io/reboot-required-packages'],
      'linux-image-6.1.0-28-amd64,libc6',
    );
  });

  it('arm64: busybox sh, curl and nsenter start under qemu-user', () => {
    const agent = image('kubemaint-agent', 'arm64');
    const header = tool(['readelf', '--file-header', join(agent.rootfs, 'usr/bin/curl')]);
    assert.match(header, /Machine:\s+AArch64/);
    const sh = runIn(agent, ['/usr/bin/busybox', 'sh', '-c', 'echo "$((6 * 7))"']);
    assert.equal(sh.stdout.trim(), '42', sh.stderr);
    const curl = runIn(agent, ['curl', '--version']);
    assert.equal(curl.code, 0, curl.stderr);
    assert.match(
      curl.stdout,
      /^curl 7\.\d+\.\d+ \(aarch64-unknown-linux-gnu\).*\n.*Features:.*SSL/s,
    );
    assert.match(runIn(agent, ['nsenter', '--version']).stdout, /nsenter from util-linux/);
  });
});

describe("Debian's containerd (1.6) imports the archives under the chart's names and runs them", () => {
  let dir: string;
  let containerd: ChildProcess;
  const ctr = (...args: string[]) =>
    spawnSync(
      'ctr',
      ['--address', join(dir, 'containerd.sock'), '--namespace', 'k8s.io', ...args],
      {
        encoding: 'utf8',
        timeout: 180_000,
      },
    );

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-containerd-'));
    writeFileSync(
      join(dir, 'config.toml'),
      [
        'version = 2',
        `root = "${dir}/root"`,
        `state = "${dir}/state"`,
        // Only the content store, snapshots and runc: no kubelet talks to this one.
        'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
        `[grpc]\n  address = "${dir}/containerd.sock"`,
        `[ttrpc]\n  address = "${dir}/containerd-ttrpc.sock"`,
      ].join('\n'),
    );
    containerd = spawn('containerd', ['--config', join(dir, 'config.toml')], { stdio: 'ignore' });
    for (let i = 0; i < 100 && !existsSync(join(dir, 'containerd.sock')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(existsSync(join(dir, 'containerd.sock')), 'containerd did not start');
  });
  after(() => {
    containerd.kill();
  });

  it('ctr images import names them as the chart and infra/k8s do', () => {
    for (const spec of IMAGES) {
      const imported = ctr('images', 'import', '--snapshotter', 'native', archive(spec.name));
      assert.equal(imported.status, 0, imported.stderr);
    }
    const listed = ctr('images', 'list', '--quiet');
    assert.deepEqual(
      listed.stdout.trim().split('\n').sort(),
      IMAGES.map((s) => `${s.repository}:${VERSION}`).sort(),
    );
    const daemonset = readFileSync(join(REPO_ROOT, 'infra/k8s/agent-daemonset.yaml'), 'utf8');
    assert.match(daemonset, new RegExp(`image: ${AGENT.repository}:${VERSION}\\n`));
    const serve = readFileSync(join(REPO_ROOT, 'infra/k8s/serve-deployment.yaml'), 'utf8');
    assert.match(serve, new RegExp(`image: ${CLI.repository}:${VERSION}\\n`));
  });

  it('runc runs the CLI image as its non-root user with its entrypoint (--version, executor --help)', () => {
    const run = (id: string, ...args: string[]) =>
      ctr('run', '--rm', '--snapshotter', 'native', `${CLI.repository}:${VERSION}`, id, ...args);
    const version = run('kubemaint-version', ...CLI.entrypoint, '--version');
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), VERSION);
    const uid = run('kubemaint-uid', 'node', '-e', 'console.log(process.getuid())');
    assert.equal(uid.stdout.trim(), String(CLI.user.uid), uid.stderr);
    const executor = run('kubemaint-executor', ...CLI.entrypoint, 'executor', '--help');
    assert.match(executor.stdout, /Usage: kubemaint executor/, executor.stderr);
  });
});
