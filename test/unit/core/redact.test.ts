import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskTokens } from '../../../src/core/redact.js';

describe('maskTokens: credentials pasted into text people type', () => {
  const cases: [string, string, string][] = [
    ['a Slack bot token', 'oops xoxb-123-456-abcDEF here', 'oops xoxb…(masked) here'],
    ['a Slack app token', 'xapp-1-A0-123-abc', 'xapp…(masked)'],
    ['a Slack user token', 'xoxp-1-2-3-abc', 'xoxp…(masked)'],
    ['a GitHub token', 'see ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123', 'see ghp_…(masked)'],
    ['an AWS key id', 'AKIAABCDEFGHIJKLMNOP leaked', 'AKIA…(masked) leaked'],
    ['a JWT', 'Bearer eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl', 'Bearer eyJh…(masked)'],
    ['two at once', 'xoxb-1-a and xapp-2-b', 'xoxb…(masked) and xapp…(masked)'],
    ['ordinary text', 'kernel CVE-2026-1234, ticket OPS-42', 'kernel CVE-2026-1234, ticket OPS-42'],
    [
      'a ticket link stays',
      'https://jira.example.com/browse/OPS-42',
      'https://jira.example.com/browse/OPS-42',
    ],
    [
      'a 32-hex id stays (only a whole config value is a signing secret)',
      'build 0123456789abcdef0123456789abcdef',
      'build 0123456789abcdef0123456789abcdef',
    ],
  ];
  for (const [why, text, want] of cases) it(why, () => assert.equal(maskTokens(text), want));
});
