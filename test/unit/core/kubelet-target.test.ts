/**
 * A version a person asks for is one upgrade step or refused with the versions that are: newer than
 * the kubelet, at most one minor above it, never newer than the oldest apiserver.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kubeletTargetRefusal } from '../../../src/core/kubelet-target.js';

describe('kubeletTargetRefusal', () => {
  const cases: {
    name: string;
    kubelet: string;
    apiservers: string[];
    version: string;
    refused?: RegExp;
    example?: string;
  }[] = [
    {
      name: 'the next minor, the apiserver',
      kubelet: 'v1.30.9',
      apiservers: ['v1.31.4'],
      version: 'v1.31.4',
    },
    {
      name: 'a patch of the next minor',
      kubelet: 'v1.30.9',
      apiservers: ['v1.31.4'],
      version: 'v1.31.2',
    },
    {
      name: 'a patch of its own minor',
      kubelet: 'v1.31.1',
      apiservers: ['v1.31.4'],
      version: 'v1.31.3',
    },
    {
      name: 'the next minor, the apiserver two ahead',
      kubelet: 'v1.29.3',
      apiservers: ['v1.31.4'],
      version: 'v1.30.7',
    },
    {
      name: 'newer than the apiserver (the issue: v9.99.0)',
      kubelet: 'v1.30.9',
      apiservers: ['v1.31.4'],
      version: 'v9.99.0',
      refused:
        /^v9\.99\.0 is newer than the apiserver \(a kubelet may never be\); allowed: newer than v1\.30\.9, up to v1\.31\.4 \(the apiserver\)$/,
      example: 'v1.31.4',
    },
    {
      name: 'a patch past the apiserver',
      kubelet: 'v1.30.9',
      apiservers: ['v1.31.4'],
      version: 'v1.31.5',
      refused: /newer than the apiserver/,
      example: 'v1.31.4',
    },
    {
      name: 'the oldest of several apiservers counts',
      kubelet: 'v1.30.9',
      apiservers: ['v1.32.1', 'v1.31.4'],
      version: 'v1.32.1',
      refused: /newer than the apiserver.*up to v1\.31\.4 \(the apiserver\)/,
      example: 'v1.31.4',
    },
    {
      name: 'two minors at once',
      kubelet: 'v1.29.3',
      apiservers: ['v1.31.4'],
      version: 'v1.31.4',
      refused:
        /more than one minor above the kubelet.*allowed: newer than v1\.29\.3, up to v1\.30\.x \(one minor at a time; the apiserver is v1\.31\.4\)/,
      example: 'v1.30.0',
    },
    {
      name: 'a downgrade',
      kubelet: 'v1.30.9',
      apiservers: ['v1.31.4'],
      version: 'v1.30.2',
      refused: /^v1\.30\.2 is not newer than the kubelet; allowed: newer than v1\.30\.9/,
      example: 'v1.31.4',
    },
    {
      name: 'the version it already has',
      kubelet: 'v1.30.9',
      apiservers: ['v1.31.4'],
      version: 'v1.30.9',
      refused: /not newer than the kubelet/,
      example: 'v1.31.4',
    },
    {
      name: 'nothing is allowed at the apiserver’s version',
      kubelet: 'v1.31.4',
      apiservers: ['v1.31.4'],
      version: 'v1.31.5',
      refused:
        /the kubelet is v1\.31\.4 and the apiserver v1\.31\.4: no kubelet version is allowed/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const refusal = kubeletTargetRefusal(c);
      if (!c.refused) {
        assert.equal(refusal, undefined);
        return;
      }
      assert.ok(refusal, 'refused');
      assert.match(refusal.problem, c.refused);
      assert.equal(refusal.example, c.example);
    });
  }
});
