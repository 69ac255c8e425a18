/**
 * Reads the text after the slash command (`/maint approve r-7f3a9c`) into a typed command, or a usage
 * error that says what was wrong and what would work. Pure: nothing here touches Slack or the cluster,
 * so the whole grammar of DESIGN §3 is table-tested. Names are only checked for shape here; whether a
 * node exists is the use case's question (it suggests "did you mean").
 */
import { isRequestId } from '../../core/request-id.js';
import { isStrictVersion } from '../../core/version.js';
import { suggestName } from '../../app/control/suggest.js';

export type SlackCommand =
  | { kind: 'help' }
  | { kind: 'status'; node?: string }
  | { kind: 'scan' }
  | { kind: 'reboot'; node: string; reason?: string }
  | { kind: 'upgrade'; node: string; version?: string }
  | { kind: 'approve'; id: string }
  | { kind: 'reject'; id: string; reason?: string }
  | { kind: 'cancel'; id: string }
  | { kind: 'pause'; reason?: string }
  | { kind: 'resume' }
  | { kind: 'windows' }
  | { kind: 'slots' }
  | { kind: 'release'; slot: string };

export type ParseResult =
  { ok: true; command: SlackCommand } | { ok: false; problem: string; hint: string };

/** Usage line per verb; `help` and every usage error quote these. */
export const USAGE = {
  help: 'help',
  status: 'status [node]',
  scan: 'scan',
  reboot: 'reboot <node> [reason]',
  upgrade: 'upgrade <node> [version]',
  approve: 'approve <request-id>',
  reject: 'reject <request-id> [reason]',
  cancel: 'cancel <request-id>',
  pause: 'pause [reason]',
  resume: 'resume',
  windows: 'windows',
  slots: 'slots',
  release: 'release <slot>',
} as const;

export type Verb = keyof typeof USAGE;
export type Usage = Readonly<Record<Verb, string>>;
const VERBS = Object.keys(USAGE) as Verb[];
const isVerb = (word: string): word is Verb => (VERBS as string[]).includes(word);
/** Old names still understood (ADR 0016: the idea is a slot; `locks` was its first name). */
const ALIASES: Record<string, Verb> = { locks: 'slots' };

/** The verb a typed word means (aliases included), or undefined. */
export const verbOf = (word: string): Verb | undefined => {
  const lower = ALIASES[word.toLowerCase()] ?? word.toLowerCase();
  return isVerb(lower) ? lower : undefined;
};

/** Free text (reasons) is kept short: it lands in annotations, Events and Slack sections. */
export const MAX_REASON = 300;
const NODE_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const SLOT = /^(?:kubemaint-slot-)?(\d{1,4})$/;

/** `usage`: the grammar quoted in usage errors (with several clusters, the one naming them). */
export function parseCommand(text: string, slash = '/maint', usage: Usage = USAGE): ParseResult {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, command: { kind: 'help' } };
  const [first = '', ...rest] = trimmed.split(/\s+/);
  const word = ALIASES[first.toLowerCase()] ?? first.toLowerCase();
  if (!isVerb(word)) {
    const guess = suggestName(word, VERBS) as Verb | undefined;
    return {
      ok: false,
      problem: `\`${clip(first)}\` is not a ${slash} command`,
      hint: guess
        ? `did you mean \`${slash} ${usage[guess]}\`? \`${slash} help\` lists them all`
        : `try \`${slash} help\`; commands are ${VERBS.join(', ')}`,
    };
  }
  const verb: Verb = word;
  // The reason keeps its own spacing: everything after the fixed arguments, as typed.
  const restText = (skip: number): string | undefined => {
    const words = trimmed.split(/\s+/);
    const tail = words
      .slice(skip + 1)
      .join(' ')
      .trim();
    return tail === '' ? undefined : tail.slice(0, MAX_REASON);
  };
  const wrong = (problem: string, hint?: string): ParseResult => ({
    ok: false,
    problem,
    hint: hint ?? `usage: \`${slash} ${usage[verb]}\``,
  });
  const noMore = (count: number): ParseResult | undefined =>
    rest.length > count
      ? wrong(`\`${verb}\` takes ${count === 0 ? 'no arguments' : `at most ${count}`}`)
      : undefined;
  const [arg] = rest;
  switch (word) {
    case 'help':
    case 'scan':
    case 'resume':
    case 'windows':
    case 'slots':
      return noMore(0) ?? { ok: true, command: { kind: word } };
    case 'status':
      if (arg === undefined) return { ok: true, command: { kind: 'status' } };
      return (
        noMore(1) ??
        checkNode(arg, wrong) ?? { ok: true, command: { kind: 'status', node: arg.toLowerCase() } }
      );
    case 'reboot': {
      if (arg === undefined) return wrong('which node? `reboot` needs a node name');
      const reason = restText(1);
      return (
        checkNode(arg, wrong) ?? {
          ok: true,
          command: { kind: 'reboot', node: arg.toLowerCase(), ...(reason ? { reason } : {}) },
        }
      );
    }
    case 'upgrade': {
      if (arg === undefined) return wrong('which node? `upgrade` needs a node name');
      const bad = noMore(2) ?? checkNode(arg, wrong);
      if (bad) return bad;
      const version = rest[1];
      if (version !== undefined && !isStrictVersion(version))
        return wrong(
          `\`${clip(version)}\` is not a kubelet version`,
          'write it like v1.31.4 (major.minor.patch), or leave it out to go one minor towards the apiserver',
        );
      return {
        ok: true,
        command: { kind: 'upgrade', node: arg.toLowerCase(), ...(version ? { version } : {}) },
      };
    }
    case 'approve':
    case 'cancel': {
      const bad = checkId(arg, wrong) ?? noMore(1);
      return bad ?? { ok: true, command: { kind: word, id: arg! } };
    }
    case 'reject': {
      const bad = checkId(arg, wrong);
      if (bad) return bad;
      const reason = restText(1);
      return { ok: true, command: { kind: 'reject', id: arg!, ...(reason ? { reason } : {}) } };
    }
    case 'pause': {
      const reason = restText(0);
      return { ok: true, command: { kind: 'pause', ...(reason ? { reason } : {}) } };
    }
    case 'release': {
      if (arg === undefined) return wrong('which slot? `release` needs a slot name');
      const match = SLOT.exec(arg);
      if (!match)
        return wrong(
          `\`${clip(arg)}\` is not a slot`,
          `slots are named kubemaint-slot-0, kubemaint-slot-1, …; \`${slash} slots\` lists them`,
        );
      return (
        noMore(1) ?? {
          ok: true,
          command: { kind: 'release', slot: `kubemaint-slot-${Number(match[1])}` },
        }
      );
    }
  }
}

function checkNode(
  name: string,
  usage: (problem: string, hint?: string) => ParseResult,
): ParseResult | undefined {
  if (NODE_NAME.test(name.toLowerCase())) return undefined;
  return usage(
    `\`${clip(name)}\` is not a node name`,
    'node names are lower-case letters, digits, `-` and `.`, like ip-10-0-1-15.eu-west-1.compute.internal',
  );
}

function checkId(
  id: string | undefined,
  usage: (problem: string, hint?: string) => ParseResult,
): ParseResult | undefined {
  if (id === undefined) return usage('which request? give its id');
  if (isRequestId(id)) return undefined;
  return usage(
    `\`${clip(id)}\` is not a request id`,
    'request ids look like r-7f3a9c; `status` lists them',
  );
}

const clip = (text: string): string => (text.length > 64 ? `${text.slice(0, 61)}...` : text);
