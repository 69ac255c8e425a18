#!/usr/bin/env node
// Launcher for `npx kubemaint` in a checkout: runs the TypeScript entry through tsx.
// The deployed image runs the esbuild bundle (dist/cli.mjs) instead.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
