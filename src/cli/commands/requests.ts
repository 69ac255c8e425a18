/**
 * The CLI side of approvals (issue 5 §5): `status`, `approve`, `reject`, `cancel`, `decide`, `reboot`
 * and `upgrade`, on the same use cases the Slack app calls, so an approval is checked the same way
 * wherever it comes from. Each action is one thin function: parse, call, print.
 */
import type { Command } from 'commander';
import {
  findNode,
  type CommandDeps,
  type CommandResult,
  type MaintenanceAsk,
} from '../../app/control/commands.js';
import { apiserverBound } from '../../core/apiserver-bound.js';
import { readFleetView } from '../../app/control/fleet-view.js';
import { fitsOf } from '../../app/control/durations.js';
import type { ControlRuntime } from '../../compose.js';
import type { DrainDecision } from '../../core/request.js';
import { isRequestId } from '../../core/request-id.js';
import { printable } from '../../core/printable.js';
import { KubemaintError } from '../../errors.js';
import { statusJson, statusTable } from '../../../templates/cli-status.js';
import {
  cliPerson,
  controlCommand,
  globals,
  loadCliConfig,
  withControl,
} from '../control-context.js';
import { readsEveryCluster, refuseOneKubeconfigForSeveral } from '../cluster-choice.js';
import { statusAcross } from './status-across.js';
import { askAs, decideAs, waitOf, WAIT_HELP } from '../decide-as.js';
import { decideCampaignAs } from '../decide-campaign.js';
import { err, out } from '../output.js';
import { awsCredentialsLines } from '../aws-credentials-line.js';

export const REFUSED_HELP = `
Exit codes: 0 done; 2 bad flags, arguments or config (no such node, a version that cannot be, the
demo not running); 5 refused (not an approver, no such request, it has ended, …).`;

/** Commands that record something in the person's name and wait for kubemaint to act on it. */
const decisionCommand = (program: Command, name: string): Command =>
  controlCommand(program, name)
    .option(
      '--wait <seconds>',
      'how long to wait for kubemaint to act on it (0: do not wait)',
      '30',
    )
    .addHelpText('after', WAIT_HELP);

/** Print what happened; a refusal is an error with exit code 5, so scripts can tell. */
export function printResult(result: CommandResult): void {
  if (!result.ok) throw new KubemaintError('request_invalid', result.message);
  // One line: a reason inside the message cannot forge a second one.
  out(`${printable(result.message)}\n`);
}

/** The bound and its source, then what may make it wrong; a read that fails is said, not fatal. */
async function boundLines(deps: CommandDeps): Promise<string[]> {
  try {
    const reading = apiserverBound(await deps.cluster.apiserverFacts());
    return [reading.summary, ...reading.warnings.map((w) => `warning: ${w}`)].map((l) =>
      printable(l),
    );
  } catch (error) {
    return [`warning: apiserver versions not read: ${printable((error as Error).message)}`];
  }
}

export function registerRequestCommands(program: Command): void {
  controlCommand(program, 'status')
    .description('list maintenance requests (newest first) with their state and what they wait for')
    .argument('[node]', 'only this node')
    .option(
      '--json',
      'print one JSON document (every request with node, action, state, reasons, times)',
    )
    .action(async (node: string | undefined, options: { json?: boolean }, command: Command) => {
      const global = globals(command);
      const config = loadCliConfig(global);
      // Several clusters and none named: a section for each (status-across.ts).
      if (readsEveryCluster(config, global.cluster)) {
        refuseOneKubeconfigForSeveral(global.kubeconfig, 'status of');
        return statusAcross(config, { node, json: options.json, as: global.as });
      }
      return withControl(
        command,
        async ({ deps }) => {
          // A node that does not exist is a mistake worth saying (exit 2), not an empty list.
          if (node) await findNode(deps, node);
          // The read serve's /metrics shows too (fleet-view.ts), so the two cannot disagree.
          const fleet = await readFleetView(deps);
          const view = {
            ...fleet,
            requests: fleet.requests.filter((r) => !node || r.node === node),
            nodes: fleet.nodes.filter((n) => !node || n.name === node),
          };
          // Whether what still waits fits the open window, from observed durations (ADR 0017).
          const shown = { ...view, fits: await fitsOf(deps, view.requests) };
          // On stderr: whose AWS identity an EKS cluster sees, without changing what scripts read.
          const aws = global.kubeconfig ? [] : await awsCredentialsLines(config, process.env);
          for (const { ok, line } of aws) err(`${ok ? '' : 'warning: '}${line}\n`);
          // Also on stderr: the apiserver bound the skew scan measures kubelets against (ADR 0050).
          for (const line of await boundLines(deps)) err(`${line}\n`);
          out(
            options.json
              ? statusJson(shown)
              : statusTable(
                  shown,
                  deps.clock.now(),
                  config.clusters ? deps.settings.cluster : undefined,
                ),
          );
        },
        config,
      );
    });

  decisionCommand(program, 'approve')
    .description(
      'approve a proposed request, or every one of a campaign (you must be an approver: approval.approvers)',
    )
    .argument('[id]', 'request id, e.g. r-7f3a9c (see `kubemaint status`)')
    .option(CAMPAIGN_FLAG, CAMPAIGN_HELP)
    .addHelpText('after', CAMPAIGN_EXAMPLES + REFUSED_HELP)
    .action(async (id: string | undefined, _options: unknown, command: Command) => {
      const target = targetOf(command, id ? [id] : []);
      return withControl(command, async (runtime) =>
        target.campaign === undefined
          ? printResult(await decideAs(runtime, target.id, 'approve', waitOf(command)))
          : printResults(
              await decideCampaignAs(runtime, target.campaign, 'approve', waitOf(command)),
            ),
      );
    });

  endingCommand(program, 'reject', 'reject a proposed request; the node is left alone', {
    reasonHelp: 'why, shown to everyone who follows the request',
  });
  endingCommand(
    program,
    'cancel',
    'cancel a request that has not issued its host command; the node is handed back',
    { reasonHelp: 'why' },
  );

  decisionCommand(program, 'decide')
    .description(
      'answer a stalled drain: keep waiting, skip the node, or force the remaining pods out',
    )
    .argument('<id>', 'request id of the running request', requestIdArg)
    .argument('<decision>', 'wait | skip | force', drainDecision)
    .addHelpText(
      'after',
      '\n  wait   keep evicting politely (PDBs respected)\n' +
        '  skip   give the node back: uncordon, release the slot, mark the request failed\n' +
        '  force  delete the remaining pods without the Eviction API (PDBs bypassed)\n' +
        REFUSED_HELP,
    )
    .action(async (id: string, decision: DrainDecision, _options: unknown, command: Command) =>
      withControl(command, async (runtime) =>
        printResult(await decideAs(runtime, id, decision, waitOf(command))),
      ),
    );

  decisionCommand(program, 'reboot')
    .description('propose a reboot of a node (it still needs an approval, like any proposal)')
    .argument('<node>', 'node name, as in `kubectl get nodes`')
    .argument('[reason...]', 'why (default: requested by you)')
    .addHelpText('after', REFUSED_HELP)
    .action(async (node: string, reason: string[], _options: unknown, command: Command) =>
      withControl(command, (runtime) =>
        proposeAs(runtime, command, {
          node,
          action: 'reboot',
          ...(reason.length ? { reason: text(reason) } : {}),
        }),
      ),
    );

  decisionCommand(program, 'upgrade')
    .description(
      "propose a kubelet upgrade: one minor at a time, never past the apiserver's version",
    )
    .argument('<node>', 'node name')
    .argument('[version]', 'target like v1.31.4 (default: the next step toward kubelet.target)')
    .addHelpText('after', REFUSED_HELP)
    .action(
      async (node: string, version: string | undefined, _options: unknown, command: Command) =>
        withControl(command, (runtime) =>
          proposeAs(runtime, command, { node, action: 'upgrade', ...(version ? { version } : {}) }),
        ),
    );
}

/** reject and cancel: a request id, then an optional reason everyone who follows the request sees. */
function endingCommand(
  program: Command,
  kind: 'reject' | 'cancel',
  description: string,
  { reasonHelp }: { reasonHelp: string },
): void {
  decisionCommand(program, kind)
    .description(description)
    .argument('[id]', 'request id, e.g. r-7f3a9c (none with --campaign)')
    .argument('[reason...]', reasonHelp)
    .option(CAMPAIGN_FLAG, CAMPAIGN_HELP)
    .addHelpText('after', CAMPAIGN_EXAMPLES + REFUSED_HELP)
    .action(async (id: string | undefined, rest: string[], _options: unknown, command: Command) => {
      const target = targetOf(command, id === undefined ? rest : [id, ...rest]);
      const reason = text(target.words);
      return withControl(command, async (runtime) =>
        target.campaign === undefined
          ? printResult(await decideAs(runtime, target.id, kind, waitOf(command), reason))
          : printResults(
              await decideCampaignAs(runtime, target.campaign, kind, waitOf(command), reason),
            ),
      );
    });
}

const CAMPAIGN_FLAG = '--campaign <name>';
const CAMPAIGN_HELP =
  'decide every request of this campaign it can still move, each in your name (kubemaint status --json shows campaigns)';
const CAMPAIGN_EXAMPLES = `
A campaign is the requests proposed together for one reason (one Slack prompt). With --campaign,
each of its requests gets a decision object of its own in your name, as if you had decided each:
  kubemaint approve --campaign c-3f9a1b
  kubemaint reject --campaign c-3f9a1b wait for the vendor fix
`;

/**
 * A request id (first word) or a campaign (--campaign, then every word is the reason). Checked
 * before anything connects: a malformed id, or both or neither, is a usage error (exit 2).
 */
function targetOf(
  command: Command,
  words: string[],
): { id: string; campaign?: undefined; words: string[] } | { campaign: string; words: string[] } {
  const campaign = command.opts<{ campaign?: string }>().campaign;
  if (campaign !== undefined) {
    if (!/^[a-z0-9][a-z0-9.-]{0,62}$/.test(campaign))
      throw new KubemaintError(
        'usage',
        `--campaign "${campaign.slice(0, 40)}" is not a campaign name`,
        {
          hint: 'campaign names are lower-case letters, digits, dots and dashes (kubemaint status --json shows them)',
        },
      );
    if (words[0] !== undefined && isRequestId(words[0]))
      throw new KubemaintError('usage', `give a request id or --campaign, not both`, {
        hint: `kubemaint ${command.name()} ${words[0]}, or kubemaint ${command.name()} --campaign ${campaign}`,
      });
    return { campaign, words };
  }
  const [id, ...rest] = words;
  if (id === undefined)
    throw new KubemaintError('usage', `${command.name()} needs a request id or --campaign NAME`, {
      hint: 'request ids look like r-7f3a9c; `kubemaint status` lists them',
    });
  return { id: requestIdArg(id), words: rest };
}

/** One line per request; any refusal makes it exit 5 (after every line is printed). */
function printResults(results: CommandResult[]): void {
  for (const result of results.filter((r) => r.ok)) out(`${printable(result.message)}\n`);
  const refused = results.filter((r) => !r.ok);
  if (refused.length === 0) return;
  throw new KubemaintError('request_invalid', refused.map((r) => printable(r.message)).join('\n'));
}

/** reboot and upgrade: propose in the caller's own name (ADR 0012) and print what became of it. */
async function proposeAs(
  runtime: ControlRuntime,
  command: Command,
  ask: Omit<MaintenanceAsk, 'by'>,
): Promise<void> {
  printResult(await askAs(runtime, waitOf(command), { ...ask, by: await cliPerson(runtime) }));
}

/** Checked before anything connects: a malformed id is a usage error (exit 2), not a lookup. */
function requestIdArg(id: string): string {
  if (isRequestId(id)) return id;
  throw new KubemaintError('usage', `"${id.slice(0, 40)}" is not a request id`, {
    hint: 'request ids look like r-7f3a9c; `kubemaint status` lists them',
  });
}

const text = (words: readonly string[]): string | undefined =>
  words.length ? words.join(' ').slice(0, 500) : undefined;

function drainDecision(value: string): DrainDecision {
  if (value === 'wait' || value === 'skip' || value === 'force') return value;
  throw new KubemaintError('usage', `"${value.slice(0, 40)}" is not a drain decision`, {
    hint: 'use wait, skip or force (see `kubemaint decide --help`)',
  });
}
