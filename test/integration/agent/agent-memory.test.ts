/**
 * The agent's memory per node (issue 7 target: under 10 MB), measured while it marks and clears its
 * node against the sim. The sim answers node requests 300 ms late so every curl lives long enough to be sampled
 * from /proc every 10 ms. Two figures per process, peaks over the run:
 * - RSS (VmHWM): everything resident, including shared-library pages that are page cache, shared
 *   with every other process mapping the same files and reclaimable;
 * - anonymous memory (RssAnon): what the process itself allocated, which the kernel cannot reclaim.
 * The target is checked on anonymous memory; both figures are printed as test diagnostics.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { startSimCluster, type AgentCluster } from './sim-cluster.js';
import { availableShells, eventually, sandbox, startAgent } from './agent-harness.js';

const NODE = 'node-1';
const TARGET_KB = 10 * 1024;

interface Peak {
  rssKb: number;
  anonKb: number;
}

function memoryOf(pid: number | string): Peak | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0);
    return { rssKb: kb('VmHWM'), anonKb: kb('RssAnon') };
  } catch {
    return undefined; // it exited between the listing and the read
  }
}

/** The curl processes talking to `port` right now. */
function curlPids(port: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmdline.startsWith('curl\0') && cmdline.includes(`:${port}/`);
    } catch {
      return false;
    }
  });
}

const max = (a: Peak, b: Peak | undefined): Peak =>
  b ? { rssKb: Math.max(a.rssKb, b.rssKb), anonKb: Math.max(a.anonKb, b.anonKb) } : a;

describe('kubemaint-agent.sh memory per node', () => {
  let cluster: AgentCluster;
  before(async () => {
    cluster = await startSimCluster();
    cluster.sim.admin.setFaults([{ resource: 'nodes', latencyMs: 300 }]);
  });
  after(() => cluster.stop());

  for (const shell of availableShells()) {
    it(`keeps shell + curl under 10 MB of anonymous memory under ${shell.name}`, async (t) => {
      cluster.setKubemaint(NODE, { labels: {}, annotations: {} });
      const box = sandbox(shell, cluster, cluster.token, NODE);
      const port = new URL(cluster.url).port;
      const agent = startAgent(shell, box.env({ PERIOD_SECONDS: '1' }));
      let sh: Peak = { rssKb: 0, anonKb: 0 };
      let curl: Peak = { rssKb: 0, anonKb: 0 };
      const curlsSeen = new Set<string>();
      const sampler = setInterval(() => {
        sh = max(sh, memoryOf(agent.child.pid!));
        for (const pid of curlPids(port)) {
          curlsSeen.add(pid);
          curl = max(curl, memoryOf(pid));
        }
      }, 10);
      try {
        writeFileSync(box.sentinel, '');
        writeFileSync(`${box.sentinel}.pkgs`, 'linux-image-6.8.0-49-generic\nlibc6\n');
        const label = () => cluster.node(NODE).labels['kubemaint.io/reboot-required'];
        await eventually('the node is marked', () => label() === 'true');
        unlinkSync(box.sentinel);
        await eventually('the node is cleared', () => label() === undefined);
      } finally {
        clearInterval(sampler);
        await agent.stop();
      }
      t.diagnostic(
        `${shell.name}: peak RSS shell ${sh.rssKb} kB + curl ${curl.rssKb} kB = ${sh.rssKb + curl.rssKb} kB; ` +
          `anonymous shell ${sh.anonKb} kB + curl ${curl.anonKb} kB = ${sh.anonKb + curl.anonKb} kB ` +
          `(${curlsSeen.size} curl calls sampled)`,
      );
      assert.ok(curlsSeen.size >= 3, 'sampled the read and both writes');
      assert.ok(
        sh.rssKb > 0 && curl.rssKb > 0 && curl.anonKb > 0,
        'the sampler saw both processes',
      );
      assert.ok(
        sh.anonKb + curl.anonKb < TARGET_KB,
        `${sh.anonKb + curl.anonKb} kB of anonymous memory is over the 10 MB target`,
      );
    });
  }
});
