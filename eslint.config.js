import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

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
    '**/sim/**',
  ],
  message: 'src/core is pure: take facts in, return decisions out (luxon is its only dependency).',
};

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'coverage/**',
      '.serverless/**',
      '.kubemaint/**',
      'node_modules/**',
      'eslint.config.js',
      'bin/**',
      'scripts/**',
      'infra/**',
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
    files: ['test/**/*.ts', 'bench/**/*.ts'],
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
