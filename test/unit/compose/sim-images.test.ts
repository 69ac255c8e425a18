/**
 * What a simulator started on its own runs for kubemaint's images (src/compose/sim-host.ts): the
 * executor as this very program unless `--image` maps it, the agent only where nodes have file
 * systems; the person's mappings come first (the first matching pattern wins).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mappingFor } from '@kubemaint/kubesim';
import { AGENT_IMAGE_PATTERN, withKubemaintImages } from '../../../src/compose/sim-host.js';

const EXECUTOR = 'ghcr.io/kubemaint/kubemaint:0.1.0';

describe("kubemaint's own images on a simulator of its own", () => {
  it('runs the executor image as this program by default, and no agent', () => {
    const images = withKubemaintImages({}, { agent: false });
    const command = mappingFor(images, EXECUTOR)?.command ?? [];
    assert.equal(command[0], process.execPath);
    assert.match(command.at(-1) ?? '', /src\/cli\/main\.ts$/);
    assert.equal(mappingFor(images, 'kubemaint-agent:0.1.0'), undefined);
    assert.equal(mappingFor(images, 'registry.example.com/app:1'), undefined);
  });

  it('runs the agent image as bin/kubemaint-sim-agent where nodes have file systems', () => {
    const images = withKubemaintImages({}, { agent: true });
    assert.deepEqual(Object.keys(images).at(-1), AGENT_IMAGE_PATTERN);
    const command = mappingFor(images, 'kubemaint-agent:0.1.0')?.command ?? [];
    assert.equal(command[0], 'sh');
    assert.match(command[1] ?? '', /bin\/kubemaint-sim-agent$/);
  });

  it("keeps the person's mapping of the same image, and of a narrower pattern, first", () => {
    const mine = { command: ['npx', 'tsx', 'src/cli/main.ts'] };
    const same = withKubemaintImages({ 'ghcr.io/kubemaint/kubemaint:*': mine }, { agent: false });
    assert.equal(mappingFor(same, EXECUTOR), mine);
    const narrow = withKubemaintImages({ [EXECUTOR]: mine }, { agent: false });
    assert.equal(mappingFor(narrow, EXECUTOR), mine);
    assert.notEqual(mappingFor(narrow, 'ghcr.io/kubemaint/kubemaint:0.2.0'), mine);
  });
});
