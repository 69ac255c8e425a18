/**
 * A notification URL the service's own parser refuses is a config error at start (issue 8), with the
 * path, the service's explanation and no secret in the message.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/config/parse.js';

describe('notify.urls in the config', () => {
  it('lists each malformed URL with its index, and masks what could be a secret', () => {
    const parsed = parseConfig(
      'notify:\n  urls:\n    - "slack://hook:topsecret@webhook"\n    - "teams://old@outlook.office.com/webhook/x"\n    - "ntfy://ntfy.sh/ok-topic"\n',
      'test.yaml',
      {},
    );
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    const paths = parsed.problems.map((p) => p.path);
    assert.deepEqual(paths, ['notify.urls[0]', 'notify.urls[1]']);
    assert.match(parsed.problems[1]!.message, /retired Office 365 connector/);
    assert.ok(!JSON.stringify(parsed.problems).includes('topsecret'));
  });
});
