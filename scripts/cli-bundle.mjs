// How the CLI is bundled, in one place: the package and the image (scripts/build.mjs), the tests
// that run the executor as a process (test/support/executor-fleet.ts) and the benches use it.
//
// One ESM entry, cli.mjs, with its lazily imported code split into chunk files beside it. A command
// loads only what it imports: the executor (every Job's start, on a node about to be drained) skips
// the simulator, its protobuf code, Bolt and the control plane it never runs, a third of its start's
// CPU (issue 20). The chunks sit in the same folder as the entry, so a path a module computes from
// its own import.meta.url resolves alike from any of them (scripts/build.mjs's source URLs).

/** esbuild options for the CLI bundle into `outdir` (cli.mjs, cli-chunk-*.mjs). */
export function cliBundleOptions({
  root,
  outdir,
  target = 'node22.19',
  plugins = [],
  sourcemap = false,
}) {
  return {
    entryPoints: { cli: `${root}/src/cli/main.ts` },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'cli-chunk-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    target,
    format: 'esm',
    sourcemap,
    // Half the bytes every start reads, hashes against V8's code cache and deserializes (client-node
    // alone is 7 MB unminified): an executor Job's start is on every node's critical path. Names
    // stay, so stack traces and error messages read as in the source.
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: 'warning',
    plugins,
    // Some CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __kmCreateRequire } from 'node:module'; const require = __kmCreateRequire(import.meta.url);",
    },
  };
}
