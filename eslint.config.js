import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * The layers (docs/architecture.md): functions/cli → compose → adapters → app → core, templates beside
 * the adapters; the embedded Kubernetes is a package of its own (packages/kubesim) that only the
 * wiring, the CLI and the tests use. Each zone names a folder and what it may not import; a test breaks one on purpose
 * (test/unit/architecture/layers.test.ts).
 */
const layers = [
  {
    target: './src/core',
    from: [
      './src/app',
      './src/adapters',
      './src/compose',
      './src/cli',
      './src/config',
      './packages/kubesim',
      './templates',
      './functions',
      './src/log.ts',
    ],
    message: 'src/core imports nothing of ours but core (and the error type, src/errors.ts).',
  },
  {
    target: './src/app',
    from: ['./src/adapters', './src/compose', './src/cli', './packages/kubesim', './functions'],
    message: 'src/app reaches the world only through its ports; adapters implement them.',
  },
  {
    target: './templates',
    from: ['./src/adapters', './src/compose', './src/cli', './packages/kubesim', './functions'],
    message: 'templates build values from core and app types; they never import adapters.',
  },
  {
    target: './src/config',
    from: ['./src/app', './src/compose', './src/cli', './packages/kubesim', './functions'],
    message:
      'src/config validates the file; it imports core (and its own), nothing that talks to the world.',
  },
  {
    target: './src/config',
    from: './src/adapters',
    // The one deliberate exception: a notification service owns its URL grammar, and the config
    // checks URLs by it, so a bad URL is a config error at start (docs/architecture.md).
    except: ['./notify/parse.ts'],
    message: 'src/config imports no adapter (but the notify URL grammar).',
  },
  {
    target: './src/adapters',
    from: ['./src/compose', './src/cli', './functions', './packages/kubesim'],
    message:
      'adapters are wired by src/compose; they never import the wiring, the entry points or the sim (a cluster is reached through its HTTP API).',
  },
  {
    target: './src/compose',
    from: ['./src/cli', './functions'],
    message: 'src/compose is imported by the entry points, never the other way round.',
  },
  {
    target: './packages/kubesim',
    from: ['./src', './templates', './functions', './test', './bench'],
    message:
      'kubesim is its own package: it depends on nothing of kubemaint (packages/kubesim/README.md).',
  },
  {
    target: './packages/label-selector',
    from: ['./src', './templates', './functions', './packages/kubesim'],
    message: 'label-selector is pure and shared: it imports nothing of ours.',
  },
];

const noEntryPoints = { group: ['**/functions/**'], message: 'Nothing imports an entry point.' };
const pureCore = {
  group: [
    '@kubernetes/*',
    '@slack/*',
    'pino',
    'zod',
    'node:*',
    '**/adapters/**',
    '**/config/**',
    '**/app/**',
    '@kubemaint/kubesim',
    '@kubemaint/kubesim/*',
    '@aws-sdk/*',
    '@smithy/*',
    'node-cron',
  ],
  message:
    'src/core is pure: take facts in, return decisions out (luxon and croner are its only dependencies, ADR 0039).',
};

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'coverage/**',
      '.serverless/**',
      '.kubemaint/**',
      // Helpers' scratch files (git ignores the folder too).
      '.scratch/**',
      // Stryker's reports and sandbox (npm run mutate; git ignores both).
      'reports/**',
      '.stryker-tmp/**',
      'node_modules/**',
      'eslint.config.js',
      'stryker.config.mjs',
      'stryker.dispatch.config.mjs',
      'bin/**',
      'scripts/**',
      'infra/**',
      // Generated from Kubernetes' definitions (packages/kubesim/scripts/generate-protobuf.sh).
      'packages/*/src/**/gen/**',
      'packages/*/src/**/*.gen.ts',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's describe/it return promises that the runner itself tracks.
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // The one JavaScript source (packages/kubesim/src/host-cli.mjs, a process of its own that must
    // start fast): TypeScript checks its names and types (allowJs, @ts-check), as it does the rest.
    files: ['**/*.mjs'],
    rules: { 'no-undef': 'off' },
  },
  {
    files: ['src/**/*.ts', 'templates/**/*.ts', 'functions/**/*.ts', 'packages/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver()],
      // no-cycle parses the files an import leads to: it needs to know how to read TypeScript.
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layers }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  // Later blocks win for the same rule, so the narrowest folder comes last.
  {
    files: ['src/**/*.ts', 'templates/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noEntryPoints] }] },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noEntryPoints, pureCore] }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'packages/*/test/**/*.ts'],
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
);
