import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeLostWhileRunning } from '../../../src/core/node-lost.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';

const MIN = 60_000;
const started = '2026-01-01T00:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(started) + minutes * MIN);
const running: Pick<MaintenanceRequest, 'history'> = {
  history: [{ from: 'approved', to: 'running', at: started, by: 'kubemaint' }],
};
const node = (ready: string, readySince?: string) => ({
  ready,
  ...(readySince ? { readySince } : {}),
  bootId: 'boot-1234567890',
  kubeletVersion: 'v1.33.2',
});
const TIMEOUT = 20 * MIN;

describe('nodeLostWhileRunning', () => {
  it('a Ready node is never lost', () => {
    assert.equal(nodeLostWhileRunning(node('True', started), running, TIMEOUT, at(60)), undefined);
  });

  it('a silent node is lost once the timeout has passed since it went silent, not before', () => {
    const silent = node('Unknown', at(10).toISOString());
    assert.equal(nodeLostWhileRunning(silent, running, TIMEOUT, at(29)), undefined);
    const why = nodeLostWhileRunning(silent, running, TIMEOUT, at(30));
    assert.equal(
      why,
      'node stopped reporting (powered off, crashed or cut off) for 20m while the executor worked on it, before any host command: kubemaint ran none; node is NotReady (Ready=Unknown), bootID boot-123, kubelet v1.33.2',
    );
  });

  it('a kubelet that says NotReady counts too, named as such', () => {
    const why = nodeLostWhileRunning(node('False', at(1).toISOString()), running, TIMEOUT, at(25));
    assert.match(why ?? '', /^node is not Ready for 24m /);
  });

  it('a node already not Ready when the run began gets the whole timeout from the start of the run', () => {
    const before = node('Unknown', at(-60).toISOString());
    assert.equal(nodeLostWhileRunning(before, running, TIMEOUT, at(19)), undefined);
    assert.ok(nodeLostWhileRunning(before, running, TIMEOUT, at(20)));
  });

  it('after the host command the node is expected to go away: that is verification’s to judge', () => {
    const issued = { ...running, hostCommandIssuedAt: at(5).toISOString() };
    assert.equal(
      nodeLostWhileRunning(node('Unknown', at(6).toISOString()), issued, TIMEOUT, at(90)),
      undefined,
    );
  });

  it('with neither time known it waits rather than guess', () => {
    assert.equal(
      nodeLostWhileRunning(node('Unknown'), { history: [] }, TIMEOUT, at(90)),
      undefined,
    );
  });
});
