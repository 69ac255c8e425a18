import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseConfig, validate } from '../../../src/config/parse.js';
import { formatProblems, type Problem } from '../../../src/config/problems.js';
import { ConfigSchema } from '../../../src/config/schema.js';

const fixture = (name: string) => readFileSync(`test/fixtures/config/${name}`, 'utf8');

function problemsOf(doc: unknown, env: Record<string, string> = {}): Problem[] {
  const result = validate(doc, env);
  return result.ok ? [] : result.problems;
}

describe('parseConfig: each problem is found, with its path and a hint', () => {
  const cases: { name: string; doc: unknown; path: string; message: RegExp; hint?: RegExp }[] = [
    {
      name: 'a typo in a key',
      doc: { slot: { concurrncy: 2 } },
      path: 'slot.concurrncy',
      message: /^unknown key$/,
      hint: /did you mean `concurrency`\?/,
    },
    {
      name: 'a time that does not exist',
      doc: { windows: [{ days: ['sat'], start: '25:00', end: '05:00' }] },
      path: 'windows[0].start',
      message: /"25:00" is not a time/,
      hint: /22:00/,
    },
    {
      name: 'a duration in words',
      doc: { drain: { timeout: '15 minutes' } },
      path: 'drain.timeout',
      message: /"15 minutes" is not a duration/,
      hint: /15m, 1h30m, 90s/,
    },
    {
      name: 'concurrency out of range',
      doc: { slot: { concurrency: 101 } },
      path: 'slot.concurrency',
      message: /at most 100, got 101/,
    },
    {
      name: 'an unknown cluster type',
      doc: { cluster: { type: 'kubconfig' } },
      path: 'cluster.type',
      message: /"kubconfig" is not one of sim, kubeconfig, in-cluster, eks/,
      hint: /did you mean `kubeconfig`\?/,
    },
    {
      name: 'eks without its block',
      doc: { cluster: { type: 'eks' } },
      path: 'cluster.eks',
      message: /required when cluster.type is eks/,
    },
    {
      name: 'an EKS region that is not one',
      doc: {
        cluster: {
          type: 'eks',
          eks: { name: 'x', region: 'Frankfurt', endpoint: 'https://a.b', caData: 'Zm9v' },
        },
      },
      path: 'cluster.eks.region',
      message: /"Frankfurt" is not an AWS region/,
    },
    {
      name: 'EKS caData that is not a certificate',
      doc: {
        cluster: {
          type: 'eks',
          eks: { name: 'x', region: 'eu-west-1', endpoint: 'https://a.b', caData: 'Zm9v' },
        },
      },
      path: 'cluster.eks.caData',
      message: /not a base64-encoded PEM certificate/,
    },
    {
      name: 'a kubelet target that is not a version',
      doc: { kubelet: { target: '1.31' } },
      path: 'kubelet.target',
      message: /"1.31" is neither "apiserver" nor a version/,
      hint: /v1.31.4/,
    },
    {
      name: 'a broken label selector',
      doc: { drain: { podSelector: 'app in (a,b' } },
      path: 'drain.podSelector',
      message: /is not a label selector/,
      hint: /app=backup/,
    },
    {
      name: 'an invalid label key',
      doc: { detection: { rebootLabel: 'Kubemaint.IO/reboot' } },
      path: 'detection.rebootLabel',
      message: /is not a label key/,
    },
    {
      name: 'pools without poolLabel',
      doc: { slot: { pools: { gpu: 1 } } },
      path: 'slot.pools',
      message: /needs poolLabel/,
    },
    {
      name: 'a pool name that cannot be a label value',
      doc: { slot: { poolLabel: 'pool', pools: { 'has space': 1 } } },
      path: 'slot.pools["has space"]',
      message: /not a label value/,
    },
    {
      name: 'a placeholder the upgrade command does not have',
      doc: { upgrade: { command: ['upgrade', '{{node}}'] } },
      path: 'upgrade.command[1]',
      message: /\{\{version\}\} is the only one/,
    },
    {
      name: 'a shell pipe in the reboot command',
      doc: { reboot: { command: 'systemctl reboot | logger' } },
      path: 'reboot.command',
      message: /shell feature `\|`/,
    },
    {
      name: 'an expected duration past the timeout',
      doc: { reboot: { nodeTimeout: '5m', expectedDuration: '10m' } },
      path: 'reboot.expectedDuration',
      message: /longer than nodeTimeout/,
    },
    {
      name: 'a Job deadline shorter than the drain',
      doc: { drain: { timeout: '3h' } },
      path: 'executor.activeDeadline',
      message: /longer than drain.timeout/,
    },
    {
      name: 'a node label of kubemaint its own',
      doc: { nodeLabels: { before: { 'kubemaint.io/state': 'x' } } },
      path: 'nodeLabels.before["kubemaint.io/state"]',
      message: /kubemaint's own/,
    },
    {
      name: 'a node label value with a space',
      doc: { nodeLabels: { after: { 'example.com/patched': 'not ok' } } },
      path: 'nodeLabels.after["example.com/patched"]',
      message: /is not a label value/,
    },
    {
      name: "kured's drain timeout 0 (never), which a Job with a deadline cannot keep",
      doc: { drain: { timeout: 0 } },
      path: 'drain.timeout',
      message: /0 \(no limit\) cannot be kept/,
    },
    {
      name: "a Job deadline shorter than the drain and kured's delays together",
      doc: { drain: { timeout: '1h', delay: '40m' }, reboot: { delay: '20m' } },
      path: 'executor.activeDeadline',
      message: /plus drain.forceAfter, drain.delay and reboot.delay/,
    },
    {
      name: 'a cron that node-cron rejects',
      doc: { schedules: { skewScan: '0 * * *' } },
      path: 'schedules.skewScan',
      message: /is not a cron expression/,
    },
    {
      name: 'a window cron the window compiler rejects',
      doc: { windows: [{ cron: '0 2 * * 6#6', duration: '4h' }] },
      path: 'windows[0].cron',
      message: /day-of-week "6#6"/,
    },
    {
      name: 'a weekly window with a cron key too',
      doc: { windows: [{ days: ['sat'], start: '1', end: '2', cron: '0 2 * * *' }] },
      path: 'windows[0].days',
      message: /does not go with cron/,
    },
    {
      name: 'a window in a zone that does not exist',
      doc: {
        windows: [{ days: ['sat'], start: '22:00', end: '23:00', timezone: 'Europe/Berlim' }],
      },
      path: 'windows[0].timezone',
      message: /"Europe\/Berlim" is not an IANA time zone/,
    },
    {
      name: 'a freeze that ends before it starts',
      doc: { freezes: [{ from: '2026-12-20', to: '2026-12-01' }] },
      path: 'freezes[0].to',
      message: /before it starts/,
    },
    {
      name: 'a freeze date that is not a date',
      doc: { freezes: [{ from: 'christmas', to: '2026-12-27' }] },
      path: 'freezes[0].from',
      message: /"christmas" is not a date/,
    },
    {
      name: 'a Slack channel name instead of its ID',
      doc: { slack: { channel: '#ops' } },
      path: 'slack.channel',
      message: /"#ops" is not a Slack channel ID/,
      hint: /C0123ABCD/,
    },
    {
      name: 'a slash command without its slash',
      doc: { slack: { command: 'maint' } },
      path: 'slack.command',
      message: /not a slash command name/,
    },
    {
      name: 'the retired CLI approver list, saying what replaced it',
      doc: { approval: { approvers: { cli: ['*'] } } },
      path: 'approval.approvers.cli',
      message: /^was removed: the CLI now acts as your Kubernetes identity$/,
      hint: /^list Kubernetes users under approval\.approvers\.kubernetes\.users \(or groups under \.groups/,
    },
    {
      name: 'an unknown person among the approvers, with a did-you-mean',
      doc: {
        people: [{ name: 'alice', slack: ['U0ALICE'] }],
        approval: { approvers: { people: ['alcie'] } },
      },
      path: 'approval.approvers.people[0]',
      message: /^"alcie" is not a person listed under people:$/,
      hint: /did you mean `alice`\?/,
    },
    {
      name: 'an unknown person among the proposers, with the way to add one',
      doc: { approval: { proposers: { people: ['dave'] } } },
      path: 'approval.proposers.people[0]',
      message: /"dave" is not a person listed under people:/,
      hint: /add the person under people:/,
    },
    {
      name: 'one Slack identity claimed by two persons, naming both',
      doc: {
        people: [
          { name: 'alice', slack: ['U0ALICE'] },
          { name: 'bob', slack: ['U0BOB', 'U0ALICE'] },
        ],
      },
      path: 'people[1].slack[1]',
      message: /^Slack user U0ALICE is listed for both alice and bob$/,
      hint: /belongs to one person/,
    },
    {
      name: 'one Kubernetes identity claimed by two persons, naming both',
      doc: {
        people: [
          { name: 'alice', kubernetes: ['alice'] },
          { name: 'bob', kubernetes: ['alice'] },
        ],
      },
      path: 'people[1].kubernetes[0]',
      message: /^Kubernetes user "alice" is listed for both alice and bob$/,
    },
    {
      name: 'two persons by one name',
      doc: { people: [{ name: 'alice' }, { name: 'alice', slack: ['U0OTHER'] }] },
      path: 'people[1].name',
      message: /"alice" is already the name of people\[0\]/,
      hint: /merge/,
    },
    {
      name: "a person named as kubemaint's own actors",
      doc: { people: [{ name: 'detector', kubernetes: ['det'] }] },
      path: 'people[0].name',
      message: /kubemaint's own name/,
    },
    {
      name: 'a person name that could be a Slack ID',
      doc: { people: [{ name: 'U0ALICE' }] },
      path: 'people[0].name',
      message: /is not a person's name/,
    },
    {
      name: 'a Kubernetes user written with the core prefix',
      doc: { approval: { approvers: { kubernetes: { users: ['k8s:alice'] } } } },
      path: 'approval.approvers.kubernetes.users[0]',
      message: /starts with "k8s:"/,
      hint: /write "alice"/,
    },
    {
      name: 'a Kubernetes wildcard user',
      doc: { approval: { approvers: { kubernetes: { users: ['*'] } } } },
      path: 'approval.approvers.kubernetes.users[0]',
      message: /"\*" is not a Kubernetes name/,
      hint: /system:authenticated/,
    },
    {
      name: 'a Kubernetes group with a control character',
      doc: { approval: { approvers: { kubernetes: { groups: ['sre\u001b[2J'] } } } },
      path: 'approval.approvers.kubernetes.groups[0]',
      message: /is not a Kubernetes group name/,
    },
    {
      name: 'a Slack group among the proposers that is not an ID',
      doc: { approval: { proposers: { groups: ['devs'] } } },
      path: 'approval.proposers.groups[0]',
      message: /"devs" is not a Slack user group ID/,
    },
    {
      name: 'autoApprove.manual that is not a boolean',
      doc: { approval: { autoApprove: { nodeSelector: 'env=dev', manual: 'yes' } } },
      path: 'approval.autoApprove.manual',
      message: /expected true or false/,
    },
    {
      name: 'a template placeholder with a typo',
      doc: { notify: { templates: { done: '{{nod}} is back' } } },
      path: 'notify.templates.done',
      message: /\{\{nod\}\}/,
      hint: /did you mean `node`\?/,
    },
    {
      name: 'a template for an event that does not exist',
      doc: { notify: { templates: { finished: 'x' } } },
      path: 'notify.templates.finished',
      message: /^unknown key$/,
    },
    {
      name: 'a notify URL without a scheme',
      doc: { notify: { urls: ['hooks.example.com/abc'] } },
      path: 'notify.urls[0]',
      message: /not a URL with a scheme/,
    },
    {
      name: 'a Prometheus URL that is not http',
      doc: { blockers: { prometheus: { url: 'prometheus:9090' } } },
      path: 'blockers.prometheus.url',
      message: /not an http\(s\) URL/,
    },
    {
      name: 'an alert filter that is not a regexp',
      doc: { blockers: { prometheus: { url: 'http://p:9090', alertFilter: '(' } } },
      path: 'blockers.prometheus.alertFilter',
      message: /not a regular expression/,
    },
    {
      name: 'an empty blocking pod selector',
      doc: { blockers: { pods: [''] } },
      path: 'blockers.pods[0]',
      message: /would match every pod/,
    },
    {
      name: 'a percentage over 100',
      doc: { blockers: { maxUnhealthyNodes: '150%' } },
      path: 'blockers.maxUnhealthyNodes',
      message: /neither a whole number of nodes nor a percentage/,
    },
    {
      name: 'a required EKS field left out',
      doc: { cluster: { type: 'eks', eks: { region: 'eu-west-1' } } },
      path: 'cluster.eks.name',
      message: /^is required$/,
    },
    {
      name: 'a Slack channel without a bot token is fine, a bot token without channel is not',
      doc: {},
      path: 'slack.channel',
      message: /required when SLACK_BOT_TOKEN is set/,
    },
  ];
  const slackEnv = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_APP_TOKEN: 'xapp-1-2-abc' };
  for (const c of cases) {
    it(c.name, () => {
      const env =
        c.path === 'slack.channel' && c.doc !== undefined && !('slack' in (c.doc as object))
          ? slackEnv
          : {};
      const problems = problemsOf(c.doc, env);
      const found = problems.find((p) => p.path === c.path);
      assert.ok(found, `no problem at ${c.path}; got ${JSON.stringify(problems)}`);
      assert.match(found.message, c.message);
      if (c.hint) assert.match(found.hint ?? '', c.hint);
    });
  }
});

describe('parseConfig: Slack on (SLACK_BOT_TOKEN set) needs the channels decisions are taken in', () => {
  const env = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_APP_TOKEN: 'xapp-1-2-abc' };
  const at = (doc: unknown, e: Record<string, string> = env) =>
    problemsOf(doc, e).filter((p) => p.path === 'slack.allowedChannels');
  it('requires allowedChannels, with a hint naming the prompt channel', () => {
    const [problem, ...more] = at({ slack: { channel: 'C0MAINT' } });
    assert.deepEqual(more, []);
    assert.match(problem?.message ?? '', /^is required when SLACK_BOT_TOKEN is set/);
    assert.match(problem?.hint ?? '', /at least the prompt channel, e\.g\. \[C0MAINT\]/);
  });
  it('accepts a list that includes the prompt channel', () =>
    assert.deepEqual(
      problemsOf({ slack: { channel: 'C0MAINT', allowedChannels: ['C0MAINT', 'C0OPS'] } }, env),
      [],
    ));
  it('refuses a list without the prompt channel, whose buttons would all be refused', () => {
    const [problem] = at({ slack: { channel: 'C0MAINT', allowedChannels: ['C0OPS'] } });
    assert.match(problem?.message ?? '', /does not include slack\.channel \(C0MAINT\)/);
    assert.equal(problem?.hint, 'add C0MAINT to the list');
  });
  it('needs neither without Slack', () => assert.deepEqual(problemsOf({}, {}), []));
});

describe('parseConfig: every problem in one run', () => {
  it('lists the thirteen problems of many-problems.yaml, in file order', () => {
    const result = parseConfig(fixture('many-problems.yaml'), 'many-problems.yaml');
    assert.equal(result.ok, false);
    if (result.ok) return;
    const text = formatProblems('many-problems.yaml', result.problems);
    assert.equal(text, fixture('many-problems.golden.txt').trimEnd());
    // The fixture marks each bad line with "# bad"; each one must be reported.
    assert.equal(result.problems.length, fixture('many-problems.yaml').match(/# bad/g)?.length);
  });
});

describe('parseConfig: wrong types', () => {
  const cases: { doc: unknown; path: string; message: RegExp; hint?: RegExp }[] = [
    {
      doc: { slot: { concurrency: 'three' } },
      path: 'slot.concurrency',
      message: /expected a number, got "three"/,
    },
    {
      doc: { slot: { concurrency: '3' } },
      path: 'slot.concurrency',
      message: /expected a number, got "3"/,
      hint: /write 3 without quotes/,
    },
    {
      doc: { slot: { concurrency: 1.5 } },
      path: 'slot.concurrency',
      message: /expected a whole number, got 1.5/,
    },
    {
      doc: { drain: { force: 'yes' } },
      path: 'drain.force',
      message: /expected true or false/,
      hint: /without quotes/,
    },
    {
      doc: { detection: { conditionTypes: 'RebootRequired' } },
      path: 'detection.conditionTypes',
      message: /expected a list/,
    },
    {
      doc: { windows: { days: ['sat'] } },
      path: 'windows',
      message: /expected a list, got a map of keys/,
    },
    {
      doc: { blockers: { pods: 'app=backup' } },
      path: 'blockers.pods',
      message: /expected a list/,
    },
    {
      doc: { reboot: { command: 42 } },
      path: 'reboot.command',
      message: /expected text or a list, got 42/,
    },
    { doc: { cluster: 'sim' }, path: 'cluster', message: /expected a map of keys, got "sim"/ },
    { doc: { namespace: 5 }, path: 'namespace', message: /expected text, got 5/ },
    {
      doc: { windows: [null] },
      path: 'windows[0]',
      message: /expected a map of keys, got an empty value/,
    },
    {
      doc: { windows: [{ days: ['sat'], start: true, end: '2' }] },
      path: 'windows[0].start',
      message: /expected text or a number, got true/,
    },
  ];
  for (const c of cases) {
    it(`${c.path}: ${c.message.source}`, () => {
      const problems = problemsOf(c.doc);
      const found = problems.find((p) => p.path === c.path);
      assert.ok(found, `no problem at ${c.path}; got ${JSON.stringify(problems)}`);
      assert.match(found.message, c.message);
      if (c.hint) assert.match(found.hint ?? '', c.hint);
    });
  }
  it('a document that is not a map is one problem', () => {
    const result = parseConfig('- a\n- b\n', 'list.yaml');
    assert.equal(result.ok, false);
    if (!result.ok)
      assert.deepEqual(
        result.problems.map((p) => p.path),
        ['(top level)'],
      );
  });
});

describe('parseConfig: YAML syntax errors carry line and column', () => {
  const cases: { text: string; path: RegExp; message: RegExp }[] = [
    {
      text: 'slot:\n  concurrency: 1\n concurrency: 2\n',
      path: /^line 3, column \d+$/,
      message: /./,
    },
    { text: 'slot: { concurrency: 1\ndrain: {}\n', path: /^line \d+, column \d+$/, message: /./ },
    { text: 'slot:\n  ttl: 1m\n  ttl: 2m\n', path: /^line 3, column 3$/, message: /unique/ },
    { text: 'a: "unterminated\n', path: /^line \d+, column \d+$/, message: /./ },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.text), () => {
      const result = parseConfig(c.text, 'k.yaml');
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.match(result.problems[0]?.path ?? '', c.path);
      assert.match(result.problems[0]?.message ?? '', c.message);
      assert.doesNotMatch(result.problems[0]?.message ?? '', /at line/);
    });
  }
});

describe('parseConfig: secrets are refused and never echoed', () => {
  const BOT = 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
  const SIGNING = '8f742231b10e8888abcd99yyyzzz85a5';
  const text = [
    'slack:',
    `  channel: ${BOT}`,
    `  signingSecret: ${SIGNING}`,
    'slot:',
    `  concurrency: ${BOT}`,
    'notify:',
    '  urls: ["https//user:hunter2secret@hooks.example.com"]',
    'drain:',
    `  timeout: "${BOT}"`,
    '',
  ].join('\n');
  const env = { SLACK_BOT_TOKEN: 'not-a-token-but-secret-anyway', SLACK_SIGNING_SECRET: 'abc' };
  const result = parseConfig(text, 'secret.yaml', env);
  const output = result.ok ? '' : formatProblems('secret.yaml', result.problems);

  it('reports the token at each place it appears', () => {
    assert.equal(result.ok, false);
    for (const path of ['slack.channel', 'slot.concurrency', 'drain.timeout']) {
      assert.match(output, new RegExp(`${path.replace('.', '\\.')}: looks like a Slack bot token`));
    }
  });
  it('points the secret key at the environment', () =>
    assert.match(
      output,
      /slack\.signingSecret: unknown key — secrets come from the environment: set SLACK_SIGNING_SECRET/,
    ));
  it('reports a bad environment token by name only', () =>
    assert.match(output, /\$SLACK_BOT_TOKEN: is set but does not look like a bot token/));
  it('echoes none of the secret values', () => {
    for (const secret of [BOT.slice(5), SIGNING, 'hunter2secret', env.SLACK_BOT_TOKEN]) {
      assert.ok(!output.includes(secret), `output echoes ${secret}:\n${output}`);
    }
  });
});

describe('parseConfig: defaults', () => {
  const defaults = ConfigSchema.parse({});
  const cases: [string, string][] = [
    ['an empty file', ''],
    ['comments only', '# nothing here\n'],
    ['empty sections', 'slot:\ndrain:\nwindows:\ncluster:\n'],
  ];
  for (const [name, text] of cases) {
    it(`${name} gives the defaults`, () => {
      const result = parseConfig(text, 'k.yaml');
      assert.ok(result.ok, JSON.stringify(result));
      const { secrets, ...config } = result.config;
      assert.deepEqual(config, defaults);
      assert.deepEqual(secrets, {});
    });
  }
  it('has the documented values', () => {
    assert.equal(defaults.cluster.type, 'sim');
    assert.deepEqual(defaults.cluster.type === 'sim' && defaults.cluster.sim, {
      scenario: 'demo',
      nodes: 6,
      port: 0,
    });
    assert.equal(defaults.namespace, 'kubemaint');
    assert.equal(defaults.slot.concurrency, 1);
    assert.equal(defaults.slot.ttl, 30 * 60_000);
    assert.equal(defaults.drain.timeout, 15 * 60_000);
    assert.equal(defaults.drain.gracePeriodSeconds, -1);
    assert.deepEqual(defaults.reboot.command, ['systemctl', 'reboot']);
    assert.equal(defaults.reboot.signal, 39);
    // kubemaint's kubeadm scripts (infra/upgrade), chosen by each node's OS image.
    assert.equal(defaults.upgrade.method, 'kubeadm');
    assert.equal(defaults.upgrade.command, undefined);
    assert.deepEqual(defaults.blockers.maxUnhealthyNodes, { count: 0 });
    assert.equal(defaults.approval.expiry, 72 * 3_600_000);
    const nobody = { users: [], groups: [], kubernetes: { users: [], groups: [] }, people: [] };
    assert.deepEqual(defaults.approval.approvers, nobody);
    assert.deepEqual(defaults.approval.proposers, nobody);
    assert.deepEqual(defaults.people, []);
    assert.deepEqual(defaults.slack.allowedChannels, []);
    assert.equal(defaults.kubelet.target, 'apiserver');
    assert.deepEqual(defaults.windows, []);
    assert.equal(defaults.schedules.tick, '* * * * *');
  });
});

describe('parseConfig: values come out typed', () => {
  const result = parseConfig(fixture('valid-eks.yaml'), 'valid-eks.yaml', {
    SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
    SLACK_APP_TOKEN: 'xapp-1-2-abc',
  });
  it('parses the EKS fixture', () => assert.ok(result.ok, JSON.stringify(result)));
  if (!result.ok) return;
  const { config } = result;
  it('names an EKS cluster after the EKS name', () => {
    assert.equal(config.cluster.type, 'eks');
    assert.equal(config.cluster.name, 'prod-eu');
  });
  it('normalises the kubelet version', () => assert.equal(config.kubelet.target, 'v1.31.4'));
  it('splits a command string into argv', () =>
    assert.deepEqual(config.reboot.command, ['/bin/systemctl', 'reboot', '--force']));
  it('reads a percentage limit', () =>
    assert.deepEqual(config.blockers.maxUnhealthyNodes, { percent: 10 }));
  it('turns durations into milliseconds', () => {
    assert.equal(config.drain.timeout, 20 * 60_000);
    assert.equal(config.approval.expiry, 24 * 3_600_000);
  });
  it("keeps windows in the window compiler's shape", () =>
    assert.deepEqual(config.windows, [
      { days: ['sat', 'sun'], start: '10pm', end: '6am', timezone: 'America/New_York' },
    ]));
  it('keeps per-pool limits', () => assert.deepEqual(config.slot.pools, { gpu: 1, general: 3 }));
  it('reads persons and the identity lists', () => {
    assert.deepEqual(config.people, [
      { name: 'alice', slack: ['U0ALICE'], kubernetes: ['alice@example.com'] },
    ]);
    assert.deepEqual(config.approval.approvers.kubernetes, {
      users: ['system:serviceaccount:ops:oncall'],
      groups: ['sre'],
    });
    assert.deepEqual(config.approval.approvers.people, ['alice']);
    assert.deepEqual(config.approval.proposers.kubernetes.groups, ['developers']);
    assert.deepEqual(config.approval.autoApprove, {
      nodeSelector: 'node.kubernetes.io/pool=dev',
      manual: false,
    });
  });
  it('holds the Slack secrets as Secret', () => {
    assert.equal(config.secrets.botToken?.reveal(), 'xoxb-1-2-abc');
    assert.ok(!JSON.stringify(config).includes('xoxb-1-2-abc'));
  });
  it('names a kubeconfig cluster after its context', () => {
    const kube = parseConfig(fixture('valid-kubeconfig.yaml'), 'k.yaml');
    assert.ok(kube.ok);
    assert.deepEqual(kube.config.cluster, {
      type: 'kubeconfig',
      name: 'staging-admin',
      kubeconfig: { path: '~/.kube/staging', context: 'staging-admin' },
    });
  });
});

describe('parseConfig: hostile YAML is a problem, never a bare error', () => {
  const only = (text: string): Problem => {
    const result = parseConfig(text, 'k.yaml');
    assert.ok(!result.ok);
    assert.equal(result.problems.length, 1, JSON.stringify(result.problems));
    return result.problems[0]!;
  };
  it('refuses an alias bomb ("billion laughs") quickly', () => {
    const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++)
      levels.push(
        `l${i}: &l${i} [${Array(10)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    const problem = only(levels.join('\n'));
    assert.match(problem.message, /aliases expand to too many values/);
    assert.match(problem.hint ?? '', /write the values out/);
  });
  it('refuses an alias to its own ancestor, at its path', () => {
    const problem = only('approval:\n  approvers: &a\n    users: [*a]\n');
    assert.equal(problem.path, 'approval.approvers.users[0]');
    assert.match(problem.message, /refers to itself/);
  });
  it('says "nested too deeply" for nesting past the parser stack', () => {
    const problem = only(`cluster: ${'['.repeat(5000)}${']'.repeat(5000)}`);
    assert.match(problem.message, /nested too deeply/);
  });
});
