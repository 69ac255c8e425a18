/**
 * The reporter agent against the sim, as it runs in a pod: TLS verified with the sim's CA, the
 * sim's bearer token in a service-account token file, and a temporary directory standing in for
 * the host's /var/run. Every case runs under each available shell (dash, busybox sh).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, unlinkSync, writeFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { join } from 'node:path';
import {
  startSimCluster,
  type AgentCluster,
  type AgentWrite,
  type NodeMeta,
} from './sim-cluster.js';
import { availableShells, eventually, runAgent, sandbox, startAgent } from './agent-harness.js';

const NODE = 'node-3';
const LABEL = 'kubemaint.io/reboot-required';
const SINCE = 'kubemaint.io/reboot-required-since';
const PKGS = 'kubemaint.io/reboot-required-packages';
const REPORTER = 'kubemaint.io/reboot-required-reporter';

const unmarked = (): NodeMeta => ({ labels: {}, annotations: {} });
const marked = (packages: string, since = '2026-11-20T03:00:00Z'): NodeMeta => ({
  labels: { [LABEL]: 'true' },
  annotations: { [SINCE]: since, [PKGS]: packages, [REPORTER]: 'agent' },
});
/** The agent logs every patch the API accepted. */
const PATCHED = /reboot-required (marked|cleared)/;
const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Each write changed kubemaint.io/ labels and annotations and nothing else on the Node. */
function assertOnlyOwnKeys(writes: readonly AgentWrite[]) {
  for (const { before: was, after: now } of writes) {
    assert.deepEqual(now.spec, was.spec, 'spec changed');
    assert.deepEqual(now.status, was.status, 'status changed');
    for (const part of ['labels', 'annotations'] as const) {
      const a = was.metadata[part] ?? {};
      const b = now.metadata[part] ?? {};
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (a[key] !== b[key])
          assert.ok(key.startsWith('kubemaint.io/'), `the agent changed ${part} ${key}`);
      }
    }
  }
}

for (const shell of availableShells()) {
  describe(`kubemaint-agent.sh under ${shell.name}, against the sim`, () => {
    let cluster: AgentCluster;
    before(async () => (cluster = await startSimCluster()));
    after(() => cluster.stop());
    const writes = () => cluster.writes(NODE);
    const fresh = (meta: NodeMeta, node = NODE) => {
      cluster.sim.admin.setFaults([]);
      cluster.setKubemaint(node, meta);
      cluster.clearWrites();
      return sandbox(shell, cluster, cluster.token, node);
    };

    it('marks its node when the sentinel appears, with the file time and the packages', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '*** System restart required ***\n');
      writeFileSync(
        `${box.sentinel}.pkgs`,
        'linux-image-6.8.0-49-generic\nlibc6\nlinux-image-6.8.0-49-generic\n',
      );
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '1' }));
      assert.equal(run.code, 0, run.output);
      assert.deepEqual(
        cluster.node(NODE),
        marked('linux-image-6.8.0-49-generic,libc6', isoSeconds(statSync(box.sentinel).mtime)),
      );
      assert.equal(writes().length, 1);
      assertOnlyOwnKeys(writes());
    });

    it('clears the label and annotations when the sentinel is gone, and nothing else', async () => {
      const box = fresh(marked('libc6'));
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '1' }));
      assert.equal(run.code, 0, run.output);
      assert.deepEqual(cluster.node(NODE), unmarked());
      assert.equal(writes().length, 1);
      assertOnlyOwnKeys(writes());
    });

    it('writes nothing when the node already says what the host says', async () => {
      const box = fresh(marked('libc6'));
      writeFileSync(box.sentinel, '');
      writeFileSync(`${box.sentinel}.pkgs`, 'libc6\n');
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '5' }));
      assert.equal(run.code, 0, run.output);
      assert.equal(writes().length, 0);
      assert.doesNotMatch(run.output, PATCHED, 'sent no patch, not even a no-op one');
      const clean = fresh(unmarked());
      const again = await runAgent(shell, clean.env({ AGENT_ITERATIONS: '5' }));
      assert.equal(again.code, 0);
      assert.equal(writes().length, 0);
      assert.doesNotMatch(again.output, PATCHED);
    });

    it("compares with the node on start: the demo's node-2 is already marked for its packages", async () => {
      const box = sandbox(shell, cluster, cluster.token, 'node-2');
      cluster.clearWrites();
      writeFileSync(box.sentinel, '');
      writeFileSync(`${box.sentinel}.pkgs`, 'linux-image-6.8.0-1016-aws\nlibc6\n');
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '3' }));
      assert.equal(run.code, 0, run.output);
      assert.equal(cluster.writes('node-2').length, 0);
      // The sim does not record a patch that changes nothing, so the agent's own log must show none.
      assert.doesNotMatch(run.output, PATCHED);
    });

    it('remembers what it wrote: one write over many checks of an unchanged host', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '6', RESYNC_EVERY: '2' }));
      assert.equal(run.code, 0, run.output);
      assert.equal(writes().length, 1);
      assert.equal(run.output.match(/reboot-required (marked|cleared)/g)?.length, 1, run.output);
    });

    it('updates the packages but keeps the first time when more packages ask for a reboot', async () => {
      const box = fresh(marked('libc6', '2026-11-01T00:00:00Z'));
      writeFileSync(box.sentinel, '');
      writeFileSync(`${box.sentinel}.pkgs`, 'libc6\nopenssl\n');
      assert.equal((await runAgent(shell, box.env({ AGENT_ITERATIONS: '1' }))).code, 0);
      assert.deepEqual(cluster.node(NODE), marked('libc6,openssl', '2026-11-01T00:00:00Z'));
    });

    it('follows the host while it runs: marks, then clears, then stops on SIGTERM', async () => {
      const box = fresh(unmarked());
      const agent = startAgent(shell, box.env({ PERIOD_SECONDS: '1' }));
      try {
        await eventually('the agent has started', () => agent.output().includes('starting'));
        writeFileSync(box.sentinel, '');
        await eventually('the node is marked', () => cluster.node(NODE).labels[LABEL] === 'true');
        unlinkSync(box.sentinel);
        await eventually(
          'the node is cleared',
          () => cluster.node(NODE).labels[LABEL] === undefined,
        );
      } finally {
        assert.equal(await agent.stop(), 0, agent.output());
      }
      assert.equal(writes().length, 2);
      assert.deepEqual(cluster.node(NODE), unmarked());
      assertOnlyOwnKeys(writes());
    });

    it('survives failing reads (500s): logs, keeps running and writes once the API answers', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      cluster.sim.admin.setFaults([{ resource: 'nodes', verb: 'get', error: 500, times: 3 }]);
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '6' }));
      assert.equal(run.code, 0, run.output);
      assert.equal(run.output.match(/cannot read this node; will retry" status=500/g)?.length, 3);
      assert.equal(cluster.node(NODE).labels[LABEL], 'true');
      assert.equal(writes().length, 1);
    });

    it('survives a failing patch (500) and retries it next period', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      cluster.sim.admin.setFaults([{ resource: 'nodes', verb: 'patch', error: 500, times: 1 }]);
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '3' }));
      assert.equal(run.code, 0, run.output);
      assert.match(run.output, /patching this node failed; will retry next period" status=500/);
      assert.equal(cluster.node(NODE).labels[LABEL], 'true');
      assert.equal(writes().length, 1);
    });

    it('gives up on an API call after API_TIMEOUT_SECONDS, and waits longer when told to', async () => {
      // A slow node (an emulated VM, a loaded host) needs longer than the defaults; a call that
      // outlives its limit is a failed read, retried next period, never a hang.
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      cluster.sim.admin.setFaults([{ resource: 'nodes', verb: 'get', latencyMs: 2_500 }]);
      const short = await runAgent(
        shell,
        box.env({ AGENT_ITERATIONS: '1', API_TIMEOUT_SECONDS: '1' }),
      );
      assert.equal(short.code, 0, short.output);
      assert.match(short.output, /cannot read this node; will retry" status=000/);
      assert.equal(writes().length, 0);
      const long = await runAgent(
        shell,
        box.env({ AGENT_ITERATIONS: '1', API_TIMEOUT_SECONDS: '10' }),
      );
      assert.equal(long.code, 0, long.output);
      assert.equal(cluster.node(NODE).labels[LABEL], 'true');
      assert.equal(writes().length, 1);
    });

    it('re-reads the rotating token each time', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      writeFileSync(box.tokenFile, 'an-expired-token');
      const agent = startAgent(shell, box.env({ PERIOD_SECONDS: '1' }));
      try {
        await eventually('the API refused the old token', () =>
          agent.output().includes('status=401'),
        );
        writeFileSync(box.tokenFile, cluster.token);
        await eventually(
          'the node is marked with the new token',
          () => cluster.node(NODE).labels[LABEL] === 'true',
        );
      } finally {
        await agent.stop();
      }
      assert.ok(!agent.output().includes(cluster.token), 'the token never appears in the log');
    });

    it('refuses a server its CA file does not vouch for (TLS is verified)', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      writeFileSync(join(box.saDir, 'ca.crt'), rootCertificates[0]!);
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '2' }));
      assert.equal(run.code, 0);
      assert.match(run.output, /cannot read this node; will retry" status=000/);
      assert.equal(writes().length, 0);
    });

    const commands = [
      { command: 'exit 0', start: unmarked(), label: 'true', writes: 1 },
      { command: 'exit 1', start: marked('x'), label: undefined, writes: 1 },
      { command: 'exit 7', start: marked('x'), label: 'true', writes: 0 },
    ];
    for (const c of commands) {
      it(`with SENTINEL_COMMAND "${c.command}" the label ends ${c.label ?? 'absent'} after ${c.writes} write(s)`, async () => {
        const box = fresh(c.start);
        writeFileSync(box.sentinel, ''); // ignored: the command wins over the file
        const run = await runAgent(
          shell,
          box.env({ AGENT_ITERATIONS: '1', SENTINEL_COMMAND: c.command, NSENTER: '' }),
        );
        assert.equal(run.code, 0, run.output);
        assert.equal(cluster.node(NODE).labels[LABEL], c.label);
        assert.equal(writes().length, c.writes);
      });
    }

    it('keeps the packages annotation short and JSON-safe', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      const names = Array.from({ length: 40 }, (_, i) => `package-number-${i}`);
      writeFileSync(`${box.sentinel}.pkgs`, `evil"},"x":"y\n${names.join('\n')}\n`);
      const run = await runAgent(
        shell,
        box.env({ AGENT_ITERATIONS: '1', MAX_PACKAGES_CHARS: '100' }),
      );
      assert.equal(run.code, 0, run.output);
      const value = cluster.node(NODE).annotations[PKGS]!;
      assert.ok(value.length <= 100, value);
      assert.match(value, /^evil,x,:,y,package-number-0,[a-z0-9,-]+,\.\.\.$/);
      assertOnlyOwnKeys(writes());
    });

    const bad: { env: Record<string, string>; message: RegExp }[] = [
      { env: { NODE_NAME: '' }, message: /NODE_NAME must be this node's name/ },
      { env: { NODE_NAME: 'Bad Name' }, message: /NODE_NAME must be this node's name/ },
      { env: { PERIOD_SECONDS: '5m' }, message: /PERIOD_SECONDS must be a whole number/ },
      {
        env: { API_TIMEOUT_SECONDS: '0' },
        message: /API_TIMEOUT_SECONDS must be a whole number of seconds, at least 1/,
      },
      {
        env: { API_CONNECT_TIMEOUT_SECONDS: '2s' },
        message: /API_CONNECT_TIMEOUT_SECONDS must be a whole number of seconds, at least 1/,
      },
    ];
    for (const b of bad) {
      it(`exits 2 with a clear message for ${JSON.stringify(b.env)}`, async () => {
        const box = fresh(unmarked());
        const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '1', ...b.env }));
        assert.equal(run.code, 2);
        assert.match(run.output, b.message);
        assert.equal(writes().length, 0);
      });
    }
  });
}
