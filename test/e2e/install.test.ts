/**
 * kubemaint as a user installs it: `npm pack` in a copy of the checkout (what a fresh clone has),
 * the tarball installed into an empty prefix, and the installed binaries run from another folder
 * with nothing of the checkout around: `kubemaint --help`, the demo (`kubemaint serve`) with
 * `kubemaint status` and `kubectl maint status` beside it, a reboot approved and done through the
 * package's own executor and host command, completion. Under an older Node (the machine's own, when
 * it is older than the engines allow) the binaries print one line naming the Node they need.
 * Slow (a build, an install, a demo reboot): one file, one demo.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../support/sim.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The Node running this test (the project's Node 24): first on the PATH of everything it starts. */
const NODE_DIR = dirname(process.execPath);

/** Our environment without npm's run-script variables, so nothing points back at the checkout. */
function cleanEnv(path: string[]): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD'),
  );
  return {
    ...env,
    PATH: [...path, process.env['PATH'] ?? ''].join(delimiter),
    KUBEMAINT_LOG_LEVEL: 'warn',
  };
}

function run(
  command: string,
  args: string[],
  cwd: string,
  path: string[],
): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: cleanEnv(path), encoding: 'utf8', timeout: 300_000 });
}

/** A Node on this machine older than the package's engines (>= 22.19), if there is one. */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout.trim();
    const [major = 0, minor = 0] = version.slice(1).split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 19)) return candidate;
  }
  return undefined;
}

describe(
  'npm pack, install into an empty prefix, run from another folder',
  { timeout: 900_000 },
  () => {
    let work: string;
    let prefix: string;
    let elsewhere: string;
    let bin: string;
    let install: SpawnSyncReturns<string>;
    let tarball: string;

    before(() => {
      work = mkdtempSync(join(tmpdir(), 'kubemaint-install-'));
      // What a fresh clone holds: the tracked files and the new ones git does not ignore, as they are.
      const clone = join(work, 'clone');
      const files = execFileSync(
        'git',
        ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      ).split('\0');
      for (const file of files) {
        if (!file || !existsSync(join(ROOT, file))) continue;
        mkdirSync(dirname(join(clone, file)), { recursive: true });
        copyFileSync(join(ROOT, file), join(clone, file));
      }
      symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
      const pack = run('npm', ['pack', '--pack-destination', work], clone, [NODE_DIR]);
      assert.equal(pack.status, 0, pack.stdout + pack.stderr);
      tarball = join(
        work,
        readdirSync(work).find((f) => f.endsWith('.tgz'))!,
      );
      prefix = join(work, 'prefix');
      install = run(
        'npm',
        [
          'install',
          '--global',
          '--prefix',
          prefix,
          '--offline',
          '--no-audit',
          '--no-fund',
          tarball,
        ],
        work,
        [NODE_DIR],
      );
      assert.equal(install.status, 0, install.stdout + install.stderr);
      bin = join(prefix, 'bin');
      elsewhere = join(work, 'elsewhere');
      mkdirSync(elsewhere);
    });
    after(() => rmSync(work, { recursive: true, force: true }));

    it('the package is the bundle and its launchers, with no runtime dependencies to install', () => {
      const listed = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
      assert.ok(listed.includes('package/dist/cli.mjs'), listed.join('\n'));
      assert.ok(listed.includes('package/bin/kubectl-maint.js'));
      assert.ok(listed.includes('package/infra/k8s/crds.yaml'), 'the demo installs the CRDs');
      assert.deepEqual(
        listed.filter((f) => /^package\/(src|test)\//.test(f)),
        [],
        'no source, no tests',
      );
      assert.equal(
        existsSync(join(prefix, 'lib', 'node_modules', 'kubemaint', 'node_modules')),
        false,
        'nothing installed beside it: the bundle carries its dependencies (add new ones with npm install -D)',
      );
      assert.doesNotMatch(install.stdout + install.stderr, /EBADENGINE/);
    });

    it('kubemaint --help and completion, from a folder with nothing of the checkout', () => {
      const help = run(join(bin, 'kubemaint'), ['--help'], elsewhere, [NODE_DIR]);
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, /^Usage: kubemaint \[options\] \[command\]/);
      assert.match(help.stdout, /kubemaint serve {2,}the demo/);
      assert.equal(help.stderr, '');
      const completion = run(join(bin, 'kubemaint'), ['completion', 'bash'], elsewhere, [NODE_DIR]);
      assert.equal(completion.status, 0, completion.stderr);
      assert.match(completion.stdout, /complete -F _kubemaint kubemaint/);
    });

    it('the demo: serve, status and kubectl maint status beside it, a reboot done', async () => {
      const path = [bin, NODE_DIR];
      const serve = spawn(
        join(bin, 'kubemaint'),
        ['serve', '--ops-port', '0', '--ops-host', '127.0.0.1'],
        {
          cwd: elsewhere,
          env: cleanEnv(path),
        },
      );
      let out = '';
      let err = '';
      serve.stdout.on('data', (c: Buffer) => (out += c.toString()));
      serve.stderr.on('data', (c: Buffer) => (err += c.toString()));
      try {
        const id = await waitFor(
          'the demo proposing node-2',
          () => /proposed\s+node-2 reboot \[(r-[0-9a-f]{6})\]/.exec(out)?.[1],
          120_000,
        ).catch((error: unknown) => {
          throw new Error(`${String(error)}\n${out}\n${err.slice(-2000)}`);
        });
        // The console suggests the commands as they are typed here: no npx outside a checkout.
        assert.match(out, new RegExp(`approve: kubemaint approve ${id}`));
        assert.doesNotMatch(out, /npx kubemaint/);
        const status = run('kubemaint', ['status'], elsewhere, path);
        assert.equal(status.status, 0, status.stderr);
        assert.match(status.stdout, new RegExp(`${id}\\s+node-2\\s+reboot\\s+proposed`));

        if (spawnSync('kubectl', ['version', '--client']).status === 0) {
          const plugin = run('kubectl', ['maint', 'status', 'node-2'], elsewhere, path);
          assert.equal(plugin.status, 0, plugin.stderr);
          assert.match(plugin.stdout, new RegExp(id));
          const pluginHelp = run('kubectl', ['maint', '--help'], elsewhere, path);
          assert.match(pluginHelp.stdout, /^Usage: kubectl maint \[options\] \[command\]/);
        }

        const approve = run('kubemaint', ['approve', id], elsewhere, path);
        assert.equal(approve.status, 0, approve.stderr);
        await waitFor(
          'node-2 rebooted and done, by the package’s executor and host command',
          () => new RegExp(`done\\s+node-2 reboot \\[${id}\\]`).test(out) || undefined,
          240_000,
        ).catch((error: unknown) => {
          throw new Error(`${String(error)}\n${out}\n${err.slice(-3000)}`);
        });
      } finally {
        serve.kill('SIGTERM');
        await new Promise((resolve) => serve.once('exit', resolve));
      }
      // A stopped demo is said in one line, at once.
      const stopped = run('kubemaint', ['status'], elsewhere, path);
      assert.equal(stopped.status, 2);
      assert.match(stopped.stderr, /^error: the demo is not running: [^\n]*\n$/);
    });

    const old = olderNode();
    it(
      'under an older Node: one line naming the Node it needs, exit 1',
      { skip: old ? false : 'no Node older than 22.19 on this machine' },
      () => {
        const path = [dirname(old!), bin];
        const version = spawnSync(old!, ['--version'], { encoding: 'utf8' }).stdout.trim().slice(1);
        for (const [command, args, name] of [
          [join(bin, 'kubemaint'), ['--help'], 'kubemaint'],
          [join(bin, 'kubemaint'), ['status'], 'kubemaint'],
          [join(bin, 'kubectl-maint'), ['status'], 'kubectl maint'],
        ] as const) {
          const result = run(command, [...args], elsewhere, path);
          assert.equal(result.status, 1, result.stderr);
          assert.equal(result.stdout, '');
          assert.equal(
            result.stderr,
            `${name} needs Node >= 22.19 (this is ${version}): install Node 24 LTS, or put a newer node first on the PATH\n`,
          );
        }
      },
    );
  },
);
