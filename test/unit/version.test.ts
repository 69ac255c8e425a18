import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { VERSION } from '../../src/version.js';
import { jobName } from '../../src/core/names.js';

describe('version', () => {
  it('matches package.json', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal(VERSION, pkg.version);
  });
});

describe('jobName', () => {
  const cases = [
    { node: 'node-1', id: 'r-abc123', want: 'kubemaint-r-abc123-node-1' },
    {
      node: 'ip-10-0-1-5.ec2.internal',
      id: 'r-abc123',
      want: 'kubemaint-r-abc123-ip-10-0-1-5-ec2-internal',
    },
    { node: 'x'.repeat(100), id: 'r-abc123', want: `kubemaint-r-abc123-${'x'.repeat(44)}` },
  ];
  for (const c of cases) {
    it(`${c.node.slice(0, 20)} → ${c.want.slice(0, 40)}`, () => {
      const name = jobName(c.node, c.id);
      assert.equal(name, c.want);
      assert.ok(name.length <= 63);
    });
  }
  it('is deterministic for the same request', () => {
    assert.equal(jobName('n', 'r-1'), jobName('n', 'r-1'));
  });
});
