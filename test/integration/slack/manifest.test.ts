/**
 * The Slack app manifests (slack/manifest.yaml over HTTP, slack/manifest-socket-mode.yaml): their bot
 * scopes are exactly what the Web API methods kubemaint calls need (each method's scope from Slack's
 * method reference), their slash command is the config's default, and their request URLs are routes
 * the running app (serve's HTTP receiver, the Lambda's HTTP API) answers.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { parseConfig } from '../../../src/config/parse.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { interactionBody, slackHeaders, slashCommandBody } from '../../support/slack-sign.js';
import { CHANNEL, SECRET, startHarness, type Harness } from '../../support/slack-app.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Manifest {
  features: {
    slash_commands: { command: string; url?: string }[];
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    interactivity: { is_enabled: boolean; request_url?: string };
    socket_mode_enabled: boolean;
  };
}
const manifest = (file: string) =>
  parse(readFileSync(join(ROOT, 'slack', file), 'utf8')) as Manifest;
const http = manifest('manifest.yaml');
const socket = manifest('manifest-socket-mode.yaml');

/**
 * The bot scope each Web API method needs ("Required scopes" on https://api.slack.com/methods/<name>);
 * null: none (views.* need only a trigger_id, auth.test any token). A method kubemaint starts calling
 * that is not here fails the test until its scope is added here and to both manifests.
 */
const METHOD_SCOPES: Record<string, string | null> = {
  'auth.test': null,
  'chat.delete': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'conversations.join': 'channels:join',
  'reactions.add': 'reactions:write',
  'usergroups.list': 'usergroups:read',
  'usergroups.users.list': 'usergroups:read',
  'users.info': 'users:read',
  'views.open': null,
  'views.push': null,
  'views.update': null,
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'sim' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const FAMILIES =
  'apps|auth|bookmarks|chat|conversations|files|pins|reactions|team|usergroups|users|views';
/** Web API methods called through a Bolt/WebClient client (`client.chat.update(`, `api.usergroups.users.list(`), by URL, or by apiCall. */
const CALL_PATTERNS = [
  new RegExp(`\\b(?:client|api)\\s*\\.\\s*((?:${FAMILIES})(?:\\s*\\.\\s*[A-Za-z]+)+)\\s*\\(`, 'g'),
  /slack\.com\/api\/([A-Za-z.]+)/g,
  /\.apiCall\(\s*['"]([A-Za-z.]+)['"]/g,
];

function webApiCalls(): Map<string, string[]> {
  const calls = new Map<string, string[]>();
  for (const file of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'functions'))]) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of CALL_PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        const method = match[1]!.replace(/\s/g, '');
        calls.set(method, [...(calls.get(method) ?? []), relative(ROOT, file)]);
      }
    }
  }
  return calls;
}

describe('the Slack app manifests', () => {
  test('the bot scopes are exactly those the Web API methods kubemaint calls need, plus commands', () => {
    const calls = webApiCalls();
    // The scan finds what is known to be there, so a broken pattern cannot pass by finding nothing.
    for (const known of [
      'chat.postMessage',
      'chat.update',
      'views.open',
      'usergroups.users.list',
    ]) {
      assert.ok(calls.has(known), `the scan finds ${known}`);
    }
    const unknown = [...calls.keys()].filter((m) => !(m in METHOD_SCOPES));
    assert.deepEqual(
      unknown.map((m) => `${m} (${calls.get(m)!.join(', ')})`),
      [],
      'add these methods to METHOD_SCOPES with the scope Slack documents, and the scope to both manifests',
    );
    const needed = new Set(['commands']);
    for (const method of calls.keys()) {
      const scope = METHOD_SCOPES[method];
      if (scope) needed.add(scope);
    }
    for (const m of [http, socket])
      assert.deepEqual([...m.oauth_config.scopes.bot].sort(), [...needed].sort());
  });

  test('the Socket Mode variant is the HTTP one without request URLs', () => {
    const stripped = structuredClone(http);
    for (const command of stripped.features.slash_commands) delete command.url;
    delete stripped.settings.interactivity.request_url;
    stripped.settings.socket_mode_enabled = true;
    assert.deepEqual(socket, stripped);
    assert.equal(http.settings.socket_mode_enabled, false);
  });

  test('the slash command is the config’s default, and Lambda serves the same path', () => {
    const parsed = parseConfig('cluster: { type: in-cluster }\n', 'test');
    assert.ok(parsed.ok);
    const commands = [http, socket].map((m) => m.features.slash_commands.map((c) => c.command));
    assert.deepEqual(commands, [[parsed.config.slack.command], [parsed.config.slack.command]]);
    const serverless = parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8')) as {
      functions: { slack: { events: { httpApi: string }[] } };
    };
    const path = new URL(http.settings.interactivity.request_url!).pathname;
    assert.deepEqual(
      serverless.functions.slack.events.map((e) => e.httpApi),
      [`POST ${path}`],
    );
  });

  describe('the request URLs are routes serve answers', () => {
    let sim: TestSim;
    let h: Harness;
    const base = () => h.url.replace(/\/slack\/events$/, '');
    const send = async (path: string, body: string) => {
      const response = await fetch(`${base()}${path}`, {
        method: 'POST',
        headers: slackHeaders(SECRET, body),
        body,
      });
      return { status: response.status, text: await response.text() };
    };
    const command = (text: string) =>
      slashCommandBody({
        command: http.features.slash_commands[0]!.command,
        text,
        userId: 'UALICE',
        channelId: CHANNEL,
        responseUrl: h.api.responseUrl(),
      });

    before(async () => {
      sim = await startTestSim();
      h = await startHarness(sim);
    });
    after(async () => {
      await h.close();
      await sim.close();
    });

    test('the slash command at its URL gets the help', async () => {
      const path = new URL(http.features.slash_commands[0]!.url!).pathname;
      const answer = await send(path, command('help'));
      assert.equal(answer.status, 200);
      assert.match(answer.text, /\/maint approve r-7f3a9c/);
    });

    test('a click at the interactivity URL is acknowledged', async () => {
      const path = new URL(http.settings.interactivity.request_url!).pathname;
      const click = interactionBody({
        type: 'block_actions',
        team: { id: 'T0TEST', domain: 'test' },
        user: { id: 'UALICE', username: 'alice', name: 'alice', team_id: 'T0TEST' },
        api_app_id: 'A0TEST',
        token: 'deprecated',
        trigger_id: '1.2.trigger',
        response_url: h.api.responseUrl(),
        container: { type: 'message', message_ts: '1.0', channel_id: CHANNEL, is_ephemeral: false },
        channel: { id: CHANNEL, name: 'maintenance' },
        actions: [
          {
            type: 'button',
            action_id: SLACK_ACTION.approve,
            block_id: 'actions',
            value: 'r-000000',
            text: { type: 'plain_text', text: 'Approve' },
            action_ts: '1.0',
          },
        ],
      });
      const answer = await send(path, click);
      assert.equal(answer.status, 200);
      await h.slack.idle();
    });

    test('another path is not a route (so the two above prove something)', async () => {
      assert.equal((await send('/slack/commands', command('help'))).status, 404);
    });
  });
});
