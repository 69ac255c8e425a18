import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPeopleDirectory } from '../../../src/adapters/slack/people.js';
import { escapeMrkdwn, fitLines } from '../../../src/adapters/slack/mrkdwn.js';

describe('createPeopleDirectory', () => {
  const fakeApi = (groups: Record<string, string[]>) => {
    const calls: string[] = [];
    let failing = false;
    return {
      calls,
      fail: (on: boolean) => void (failing = on),
      api: {
        usergroups: {
          users: {
            list: async ({ usergroup }: { usergroup: string }) => {
              calls.push(usergroup);
              if (failing) throw new Error('ratelimited');
              return { users: groups[usergroup] ?? [] };
            },
          },
        },
      },
    };
  };

  it('finds the approver groups a user is in', async () => {
    const fake = fakeApi({ S1: ['U1', 'U2'], S2: ['U2'] });
    const people = createPeopleDirectory({ api: fake.api, groups: ['S1', 'S2'] });
    assert.deepEqual(await people.person('U2'), { kind: 'person', id: 'U2', groups: ['S1', 'S2'] });
    assert.deepEqual(await people.person('U1'), { kind: 'person', id: 'U1', groups: ['S1'] });
    assert.deepEqual(await people.person('U9'), { kind: 'person', id: 'U9', groups: [] });
  });

  it('shares one lookup between concurrent clicks, and reads again for the next decision', async () => {
    const fake = fakeApi({ S1: ['U1'] });
    const people = createPeopleDirectory({ api: fake.api, groups: ['S1'] });
    await Promise.all(Array.from({ length: 20 }, () => people.person('U1')));
    assert.equal(fake.calls.length, 1);
    await people.person('U1');
    assert.equal(fake.calls.length, 2, 'a later decision asks Slack again');
  });

  it('someone removed from the group can no longer approve from the next decision on', async () => {
    const groups: Record<string, string[]> = { S1: ['U1', 'U2'] };
    const fake = fakeApi(groups);
    const people = createPeopleDirectory({ api: fake.api, groups: ['S1'] });
    assert.deepEqual((await people.person('U2')).groups, ['S1']);
    groups['S1'] = ['U1'];
    assert.deepEqual((await people.person('U2')).groups, []);
  });

  it('a failed lookup makes nobody a member and is not cached', async () => {
    const fake = fakeApi({ S1: ['U1'] });
    const errors: string[] = [];
    const people = createPeopleDirectory({
      api: fake.api,
      groups: ['S1'],
      onError: (group) => errors.push(group),
    });
    fake.fail(true);
    assert.deepEqual((await people.person('U1')).groups, []);
    assert.deepEqual(errors, ['S1']);
    fake.fail(false);
    assert.deepEqual((await people.person('U1')).groups, ['S1']);
  });

  it('looks nothing up when no groups are configured', async () => {
    const fake = fakeApi({});
    const people = createPeopleDirectory({ api: fake.api, groups: [] });
    assert.deepEqual((await people.person('U1')).groups, []);
    assert.equal(fake.calls.length, 0);
  });
});

describe('mrkdwn', () => {
  it('escapes only &, < and >', () => {
    assert.equal(escapeMrkdwn(`a&b <!here> 'q' *x*`), `a&amp;b &lt;!here&gt; 'q' *x*`);
  });

  it('fits lines in a section with "and N more"', () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(40)}`);
    const text = fitLines(lines);
    assert.ok(text.length <= 3000, `${text.length} characters`);
    const shown = text.split('\n').length - 1;
    assert.match(text, new RegExp(`…and ${500 - shown} more$`));
    assert.equal(fitLines(['a', 'b']), 'a\nb');
  });
});
