// What `kubemaint` and `kubectl-maint` run first. Plain JavaScript that imports nothing but Node's
// built-ins until the Node version is checked: the CLI's dependencies (undici 8, through the
// Kubernetes client and Bolt) die on an older Node with a stack trace, so an old Node gets one line
// naming the Node it needs instead. Then the CLI itself: from source through tsx in a checkout, the
// esbuild bundle (dist/cli.mjs) in the installed package, which ships no source.
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';

const here = (path) => new URL(path, import.meta.url);

/** `>=22.19` → [22, 19, 0]; anything else is not ours to judge (no check rather than a wrong one). */
function minimumNode(range) {
  const match = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(String(range).trim());
  return match ? [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)] : undefined;
}

function tooOld(version, minimum) {
  const have = version.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) !== minimum[i]) return (have[i] ?? 0) < minimum[i];
  }
  return false;
}

export async function launch(name) {
  const engines = JSON.parse(readFileSync(here('../package.json'), 'utf8')).engines ?? {};
  const minimum = minimumNode(engines.node);
  if (minimum && tooOld(process.versions.node, minimum)) {
    process.stderr.write(
      `${name} needs Node >= ${minimum.join('.').replace(/\.0$/, '')} ` +
        `(this is ${process.versions.node}): install Node 24 LTS, or put a newer node first on the PATH\n`,
    );
    process.exit(1);
  }
  if (existsSync(here('../src/cli/main.ts'))) {
    // A checkout: the TypeScript source, so what runs is what is on disk (never a stale build).
    const { register } = await import('tsx/esm/api');
    register();
    await import('../src/cli/main.ts');
  } else if (existsSync(here('../dist/cli.mjs'))) {
    // V8's compiled code kept on disk between runs (NODE_COMPILE_CACHE, or the temp folder): the
    // bundle is large, and compiling it is most of a command's start.
    module.enableCompileCache?.();
    await import('../dist/cli.mjs');
  } else {
    process.stderr.write(
      `${name}: dist/cli.mjs is missing: this package was packed without its build (npm run build)\n`,
    );
    process.exit(1);
  }
}
