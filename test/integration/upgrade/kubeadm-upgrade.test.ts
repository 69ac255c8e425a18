/**
 * kubemaint's kubelet upgrade for kubeadm nodes (infra/upgrade/kubeadm-upgrade.sh), run exactly as
 * the executor runs it (the argv `upgradeActions` builds: `sh -c <script> kubemaint-upgrade-kubelet
 * --family … v1.31.4`), against a fake root: the pkgs.k8s.io repository files, and stub apt-get,
 * apt-mark, dnf, kubeadm, kubelet and systemctl first on PATH, each recording how it was called. The
 * exact steps, the repository file moved to the next minor, one minor at a time, a dry run that
 * changes nothing, and a failed step that leaves the packages held.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { upgradeActions } from '../../../src/app/executor/host.js';
import { DEFAULT_EXECUTOR_SETTINGS } from '../../../src/compose/executor-settings.js';
import { withUpgradeScript } from '../../../src/compose/upgrade-script.js';

const APT_LIST =
  'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.30/deb/ /\n';
const DNF_REPO = `[kubernetes]
name=Kubernetes
baseurl=https://pkgs.k8s.io/core:/stable:/v1.30/rpm/
enabled=1
gpgcheck=1
gpgkey=https://pkgs.k8s.io/core:/stable:/v1.30/rpm/repodata/repomd.xml.key
exclude=kubelet kubeadm kubectl cri-tools kubernetes-cni
`;
const UBUNTU = 'Ubuntu 22.04.4 LTS';
const ROCKY = 'Rocky Linux 9.3 (Blue Onyx)';

interface Host {
  root: string;
  calls(): string[];
  aptList(): string;
  dnfRepo(): string;
  run(args: {
    osImage?: string;
    version: string;
    extra?: string[];
    env?: Record<string, string>;
  }): {
    code: number | null;
    stdout: string;
    stderr: string;
  };
}

/** A node's / in a temp dir, with stubs that record their calls (the kubelet says `kubelet`). */
function fakeHost(
  kubelet: string,
  files: { apt?: string; dnf?: string; osRelease?: string } = {},
): Host {
  const root = mkdtempSync(join(tmpdir(), 'kubemaint-upgrade-'));
  const bin = join(root, 'stub-bin');
  const log = join(root, 'calls.log');
  mkdirSync(bin);
  mkdirSync(join(root, 'etc/apt/sources.list.d'), { recursive: true });
  mkdirSync(join(root, 'etc/yum.repos.d'), { recursive: true });
  if (files.apt !== undefined)
    writeFileSync(join(root, 'etc/apt/sources.list.d/kubernetes.list'), files.apt);
  if (files.dnf !== undefined)
    writeFileSync(join(root, 'etc/yum.repos.d/kubernetes.repo'), files.dnf);
  if (files.osRelease !== undefined) writeFileSync(join(root, 'etc/os-release'), files.osRelease);
  for (const name of ['apt-get', 'apt-mark', 'dnf', 'kubeadm', 'systemctl']) {
    // STUB_FAIL="apt-get install" makes the call whose words start so exit 100.
    const env = name === 'apt-get' ? ' [DEBIAN_FRONTEND=$DEBIAN_FRONTEND]' : '';
    writeFileSync(
      join(bin, name),
      `#!/bin/sh\nprintf '%s\\n' "${name} $*${env}" >> "${log}"\n` +
        `case "${name} $*" in "\${STUB_FAIL:-none}"*) exit 100 ;; esac\nexit 0\n`,
    );
    chmodSync(join(bin, name), 0o755);
  }
  writeFileSync(join(bin, 'kubelet'), `#!/bin/sh\necho "Kubernetes ${kubelet}"\n`);
  chmodSync(join(bin, 'kubelet'), 0o755);
  const settings = withUpgradeScript({
    ...DEFAULT_EXECUTOR_SETTINGS,
    hostPrefix: [],
    upgrade: { method: 'kubeadm', restartCommand: [] },
  });
  return {
    root,
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []),
    aptList: () => readFileSync(join(root, 'etc/apt/sources.list.d/kubernetes.list'), 'utf8'),
    dnfRepo: () => readFileSync(join(root, 'etc/yum.repos.d/kubernetes.repo'), 'utf8'),
    run({ osImage = UBUNTU, version, extra = [], env = {} }) {
      const [action] = upgradeActions(settings, version, { name: 'node-1', osImage });
      assert.ok(action?.kind === 'run');
      const [shell, ...args] = action.argv;
      // What a person adds by hand (--dry-run, --restart) goes before the version.
      const withExtra = [...args.slice(0, -1), ...extra, args.at(-1)!];
      const result = spawnSync(shell!, withExtra, {
        encoding: 'utf8',
        env: {
          PATH: `${bin}:${process.env['PATH'] ?? ''}`,
          KUBEMAINT_UPGRADE_ROOT: root,
          ...env,
        },
      });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    },
  };
}

const KEEP = '-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold';
const APT_STEPS = (v: string) => [
  'apt-mark unhold kubeadm',
  'apt-get update [DEBIAN_FRONTEND=noninteractive]',
  `apt-get install -y ${KEEP} kubeadm=${v}-* [DEBIAN_FRONTEND=noninteractive]`,
  'apt-mark hold kubeadm',
  'kubeadm upgrade node',
  'apt-mark unhold kubelet kubectl',
  `apt-get install -y ${KEEP} kubelet=${v}-* kubectl=${v}-* [DEBIAN_FRONTEND=noninteractive]`,
  'apt-mark hold kubelet kubectl',
  'systemctl daemon-reload',
];

describe('the kubeadm upgrade script, as the executor runs it on a node', () => {
  it('Debian/Ubuntu: moves the apt repository to the next minor, then kubeadm, upgrade node, kubelet and kubectl, held', () => {
    const host = fakeHost('v1.30.9', { apt: APT_LIST });
    const run = host.run({ version: 'v1.31.4' });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(host.calls(), APT_STEPS('1.31.4'));
    assert.equal(host.aptList(), APT_LIST.replace('/v1.30/', '/v1.31/'));
    assert.match(run.stdout, /kubelet v1\.30\.9 → v1\.31\.4 on a apt host/);
    assert.match(run.stdout, /the kubelet restarts when the executor has exited/);
  });

  it('RHEL family: moves baseurl and gpgkey to the next minor, installs with dnf past the excludes', () => {
    const host = fakeHost('v1.30.9', { dnf: DNF_REPO });
    const run = host.run({ osImage: ROCKY, version: 'v1.31.4' });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(host.calls(), [
      'dnf install -y kubeadm-1.31.4-* --disableexcludes=kubernetes',
      'kubeadm upgrade node',
      'dnf install -y kubelet-1.31.4-* kubectl-1.31.4-* --disableexcludes=kubernetes',
      'systemctl daemon-reload',
    ]);
    assert.equal(host.dnfRepo(), DNF_REPO.replaceAll('/v1.30/', '/v1.31/'));
    assert.match(host.dnfRepo(), /^exclude=kubelet kubeadm kubectl cri-tools kubernetes-cni$/m);
  });

  it('a patch upgrade keeps the repository of its minor', () => {
    const host = fakeHost('v1.31.2', { apt: APT_LIST.replace('/v1.30/', '/v1.31/') });
    const run = host.run({ version: 'v1.31.4' });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(host.calls(), APT_STEPS('1.31.4'));
    assert.doesNotMatch(run.stdout, /rewriting/);
  });

  it('a dry run prints every step and the repository change, and changes nothing', () => {
    for (const [osImage, files] of [
      [UBUNTU, { apt: APT_LIST }],
      [ROCKY, { dnf: DNF_REPO }],
    ] as const) {
      const host = fakeHost('v1.30.9', files);
      const run = host.run({ osImage, version: 'v1.31.4', extra: ['--dry-run'] });
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(host.calls(), [], 'nothing ran');
      if ('apt' in files) {
        assert.equal(host.aptList(), APT_LIST, 'the repository file is as it was');
        const would = [...run.stdout.matchAll(/would run: (.*)/g)].map((m) => m[1]);
        assert.deepEqual(
          would,
          APT_STEPS('1.31.4').map((step) => step.replace(' [DEBIAN_FRONTEND=noninteractive]', '')),
        );
      } else assert.equal(host.dnfRepo(), DNF_REPO);
      assert.match(run.stdout, /would rewrite \S+kubernetes\.(list|repo): v1\.30 → v1\.31/);
      assert.match(run.stdout, /dry run done: nothing was changed/);
    }
  });

  it('refuses to skip a minor, with a clear error, and changes nothing', () => {
    const host = fakeHost('v1.29.5', { apt: APT_LIST });
    const run = host.run({ version: 'v1.31.4' });
    assert.equal(run.code, 3);
    assert.match(
      run.stderr,
      /error: v1\.29\.5 → v1\.31\.4 skips v1\.30: kubeadm upgrades one minor version at a time\nkubemaint-upgrade: hint: upgrade to the newest v1\.30\.x first/,
    );
    assert.deepEqual(host.calls(), []);
    assert.equal(host.aptList(), APT_LIST);
  });

  it('refuses a downgrade and does nothing when the kubelet is already there', () => {
    const newer = fakeHost('v1.31.5', { apt: APT_LIST });
    const down = newer.run({ version: 'v1.31.4' });
    assert.equal(down.code, 3);
    assert.match(
      down.stderr,
      /the kubelet is v1\.31\.5, newer than v1\.31\.4: kubemaint does not downgrade/,
    );
    const there = fakeHost('v1.31.4', { apt: APT_LIST });
    const same = there.run({ version: 'v1.31.4' });
    assert.equal(same.code, 0);
    assert.match(same.stdout, /already v1\.31\.4; nothing to do/);
    assert.deepEqual([...newer.calls(), ...there.calls()], []);
  });

  it('a failed step stops the upgrade and holds the packages again', () => {
    const host = fakeHost('v1.30.9', { apt: APT_LIST });
    const run = host.run({ version: 'v1.31.4', env: { STUB_FAIL: 'apt-get install' } });
    assert.equal(run.code, 4);
    assert.match(run.stderr, /step failed \(exit 100\): apt-get install -y .* kubeadm=1\.31\.4-\*/);
    assert.deepEqual(host.calls(), [
      'apt-mark unhold kubeadm',
      'apt-get update [DEBIAN_FRONTEND=noninteractive]',
      `apt-get install -y ${KEEP} kubeadm=1.31.4-* [DEBIAN_FRONTEND=noninteractive]`,
      'apt-mark hold kubeadm',
    ]);
  });

  it("says so for a node whose packages are not the community repositories'", () => {
    const none = fakeHost('v1.30.9');
    const missing = none.run({ version: 'v1.31.4' });
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /no \S+kubernetes\.list: this node's packages do not come from the Kubernetes community repositories/,
    );
    const legacy = fakeHost('v1.30.9', {
      apt: 'deb https://apt.kubernetes.io/ kubernetes-xenial main\n',
    });
    const old = legacy.run({ version: 'v1.31.4' });
    assert.equal(old.code, 2);
    assert.match(
      old.stderr,
      /the legacy apt\.kubernetes\.io and yum\.kubernetes\.io repositories are gone/,
    );
    assert.deepEqual([...none.calls(), ...legacy.calls()], []);
  });

  it('run by hand: /etc/os-release picks the family, --restart restarts the kubelet', () => {
    const host = fakeHost('v1.30.9', {
      dnf: DNF_REPO,
      osRelease: 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\n',
    });
    const script = withUpgradeScript({
      ...DEFAULT_EXECUTOR_SETTINGS,
      upgrade: { method: 'kubeadm', restartCommand: [] },
    }).upgrade.script!;
    const run = spawnSync('sh', ['-s', '--', '--restart', 'v1.31.4'], {
      input: script,
      encoding: 'utf8',
      env: {
        PATH: `${join(host.root, 'stub-bin')}:${process.env['PATH'] ?? ''}`,
        KUBEMAINT_UPGRADE_ROOT: host.root,
      },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(host.calls()[0], 'dnf install -y kubeadm-1.31.4-* --disableexcludes=kubernetes');
    assert.equal(host.calls().at(-1), 'systemctl restart kubelet');
  });
});

describe('which script a node gets', () => {
  const settings = withUpgradeScript({
    ...DEFAULT_EXECUTOR_SETTINGS,
    upgrade: {
      method: 'kubeadm',
      restartCommand: ['systemd-run', '--on-active=15', 'systemctl', 'restart', 'kubelet'],
    },
  });
  it('by its OS image, the script given to the host shell, then the delayed restart', () => {
    const [install, restart] = upgradeActions(settings, 'v1.31.4', { name: 'n', osImage: UBUNTU });
    assert.ok(install?.kind === 'run' && restart?.kind === 'run');
    assert.deepEqual(install.argv.slice(0, 4), ['nsenter', '-m/proc/1/ns/mnt', '--', 'sh']);
    assert.equal(install.argv[4], '-c');
    assert.match(install.argv[5]!, /^#!\/bin\/sh\n# kubemaint's kubelet upgrade for kubeadm nodes/);
    assert.deepEqual(install.argv.slice(6), [
      'kubemaint-upgrade-kubelet',
      '--family',
      'apt',
      'v1.31.4',
    ]);
    assert.deepEqual(restart.argv.slice(3), [
      'systemd-run',
      '--on-active=15',
      'systemctl',
      'restart',
      'kubelet',
    ]);
    const [rpm] = upgradeActions(settings, 'v1.31.4', {
      name: 'n',
      osImage: 'Red Hat Enterprise Linux 9.4 (Plow)',
    });
    assert.ok(rpm?.kind === 'run');
    assert.equal(rpm.argv.at(-2), 'dnf');
  });
  it('refuses a node the scripts do not cover, before anything runs, saying what to use', () => {
    assert.throws(
      () => upgradeActions(settings, 'v1.31.4', { name: 'talos-1', osImage: 'Talos (v1.7.6)' }),
      (error: Error & { code?: string; hint?: string }) =>
        error.code === 'request_invalid' &&
        /node talos-1 runs "Talos \(v1\.7\.6\)": kubemaint's kubeadm upgrade covers Debian\/Ubuntu \(apt\) and RHEL-family \(dnf\) nodes; Talos upgrades Kubernetes with talosctl upgrade-k8s/.test(
          error.message,
        ) &&
        /upgrade\.method: command/.test(error.hint ?? ''),
    );
  });
});
