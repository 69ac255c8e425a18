import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitCommand } from '../../../src/config/argv.js';

describe('splitCommand', () => {
  const good: [string, string[]][] = [
    ['systemctl reboot', ['systemctl', 'reboot']],
    ['  /bin/systemctl   reboot  ', ['/bin/systemctl', 'reboot']],
    [`sh -c 'echo "hi there"'`, ['sh', '-c', 'echo "hi there"']],
    ['printf "a\\"b"', ['printf', 'a"b']],
    ['echo a\\ b', ['echo', 'a b']],
    ["echo ''", ['echo', '']],
    ["upgrade --to '{{version}}'", ['upgrade', '--to', '{{version}}']],
    ['a"b c"d', ['ab cd']],
  ];
  for (const [text, want] of good) {
    it(`splits ${text}`, () => assert.deepEqual(splitCommand(text), { ok: true, argv: want }));
  }

  const bad: [string, RegExp][] = [
    ['systemctl reboot | tee x', /shell feature `\|`/],
    ['reboot; rm -rf /', /shell feature `;`/],
    ['reboot && echo', /shell feature `&`/],
    ['echo $HOME', /shell feature `\$`/],
    ['echo "$HOME"', /shell feature `\$`/],
    ['echo `id`', /shell feature/],
    ['ls *.log', /shell feature `\*`/],
    ['cat > out', /shell feature `>`/],
    ['~/bin/reboot', /shell feature `~`/],
    ["echo 'unterminated", /unterminated ' quote/],
    ['echo trailing\\', /lone backslash/],
    ['   ', /is empty/],
  ];
  for (const [text, want] of bad) {
    it(`refuses ${text}`, () => {
      const result = splitCommand(text);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.error, want);
    });
  }
  it('keeps shell characters inside single quotes literal', () =>
    assert.deepEqual(splitCommand("echo 'a | b; $c'"), { ok: true, argv: ['echo', 'a | b; $c'] }));
});
