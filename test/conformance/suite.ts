/**
 * Registers the conformance cases against one backend: a `describe` per backend, the same groups and
 * test names on each, so a run lists every behaviour with its result per backend. Each case cleans up
 * what it created (namespaces, nodes, leases) whatever its outcome.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import type { Backend, BackendName } from './backend.js';
import { GROUPS } from './cases/index.js';

export function describeConformance(name: BackendName, start: () => Promise<Backend>): void {
  describe(`conformance on the ${name === 'sim' ? 'simulator' : 'real apiserver'}`, () => {
    let backend: Backend;
    before(async () => {
      backend = await start();
    });
    after(() => backend.close());
    afterEach(() => backend.cleanup());
    for (const group of GROUPS) {
      describe(group.name, () => {
        for (const c of group.cases) {
          const known = name === 'sim' ? c.simDiffers : undefined;
          it(c.id, { timeout: c.timeoutMs ?? 30_000 }, async (t) => {
            if (known) {
              t.diagnostic(`known simulator difference: ${known.reason}`);
              await known.run(backend);
            } else {
              await c.run(backend);
            }
          });
        }
      });
    }
  });
}
