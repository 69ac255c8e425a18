/**
 * The layer rules of eslint.config.js (docs/architecture.md) fail on a wrong import: each probe is a
 * file written for the moment into the folder it tests, linted with the project's own config, and
 * removed. A rule that stopped working (a resolver that no longer finds `.ts` files behind `.js`
 * specifiers, a zone with a typo) turns its probe green and this test red.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

async function lintProbe(files: Record<string, string>, target: string): Promise<string[]> {
  const written = Object.keys(files).map((path) => join(ROOT, path));
  try {
    for (const [path, text] of Object.entries(files)) writeFileSync(join(ROOT, path), text);
    const eslint = new ESLint({ cwd: ROOT });
    const [result] = await eslint.lintFiles([join(ROOT, target)]);
    return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
  } finally {
    for (const path of written) rmSync(path, { force: true });
  }
}

const tag = `layer-probe-${process.pid}`;

describe('layer rules (eslint.config.js)', () => {
  for (const [folder, from, rule] of [
    ['src/core', '../adapters/kube/client.js', /src\/core imports nothing of ours but core/],
    ['src/app', '../adapters/kube/client.js', /src\/app reaches the world only through its ports/],
    [
      'templates',
      '../src/adapters/kube/client.js',
      /templates build values from core and app types/,
    ],
    ['src/config', '../adapters/kube/client.js', /src\/config imports no adapter/],
    ['src/adapters', '../cli/main.js', /adapters are wired by src\/compose/],
    ['src/adapters', '@kubemaint/kubesim', /adapters are wired by src\/compose/],
    ['src/app', '@kubemaint/kubesim', /src\/app reaches the world only through its ports/],
    ['packages/kubesim/src', '../../../src/log.js', /kubesim is its own package/],
  ] as const) {
    it(`refuses ${folder} → ${from}`, async () => {
      const file = `${folder}/${tag}.ts`;
      const messages = await lintProbe(
        { [file]: `import * as wrong from '${from}';\nexport const probe = typeof wrong;\n` },
        file,
      );
      assert.ok(
        messages.some((m) => m.startsWith('import-x/no-restricted-paths') && rule.test(m)),
        messages.join('\n') || 'no message at all',
      );
    });
  }

  it('allows an import that follows the layers (src/app → src/core)', async () => {
    const file = `src/app/${tag}.ts`;
    const messages = await lintProbe(
      {
        [file]: `import { isActive } from '../core/request.js';\nexport const probe = isActive('done');\n`,
      },
      file,
    );
    assert.deepEqual(messages, []);
  });

  it('refuses a dependency cycle', async () => {
    const a = `src/core/${tag}-a.ts`;
    const b = `src/core/${tag}-b.ts`;
    const messages = await lintProbe(
      {
        [a]: `import { b } from './${tag}-b.js';\nexport const a = (): number => b() + 1;\n`,
        [b]: `import { a } from './${tag}-a.js';\nexport const b = (): number => (Date.now() < 0 ? a() : 0);\n`,
      },
      a,
    );
    assert.ok(
      messages.some((m) => m.startsWith('import-x/no-cycle')),
      messages.join('\n') || 'no message at all',
    );
  });
});
