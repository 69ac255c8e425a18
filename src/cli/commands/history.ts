/**
 * `kubemaint history NODE`: what kubemaint did to a node, oldest first: the summaries retention
 * kept of the requests it deleted (ConfigMap kubemaint-history), then the requests still in the
 * cluster. One node's few objects are read (a field selector), never the whole history.
 */
import type { Command } from 'commander';
import { nodeHistory } from '../../app/control/retention.js';
import { summaryLine } from '../../core/retention.js';
import { printable } from '../../core/printable.js';
import { KubemaintError } from '../../errors.js';
import { controlCommand, withControl } from '../control-context.js';
import { out } from '../output.js';

/** A node's name is a DNS subdomain (it is also put into a field selector: nothing else gets in). */
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function registerHistoryCommand(program: Command): void {
  controlCommand(program, 'history')
    .description("a node's maintenance history, oldest first, including requests retention deleted")
    .argument('<node>', 'the node (it may be gone from the cluster: its history is kept)')
    .option('--json', 'print one JSON document: { node, earlier: [lines], kept: [requests] }')
    .addHelpText(
      'after',
      `
Ended requests are deleted after retention.maxAge (default 30d) or beyond retention.keepPerNode
(default 20) per node; one line of each is kept first, as an Event on the node and in the
ConfigMap kubemaint-history. Lines marked "deleted" are those; the others are still in the cluster
(kubectl -n kubemaint get mr <id>).

Exit codes: 0 shown; 2 bad arguments or config.`,
    )
    .action(async (node: string, options: { json?: boolean }, command: Command) => {
      if (node.length > 253 || !NODE_NAME.test(node))
        throw new KubemaintError(
          'usage',
          `${JSON.stringify(node.slice(0, 60))} is not a node name`,
          {
            hint: 'a node name is lower-case letters, digits, - and . (kubectl get nodes lists them)',
          },
        );
      await withControl(command, async ({ deps }) => {
        const history = await nodeHistory(deps, node);
        if (options.json) {
          out(`${JSON.stringify(history, null, 2)}\n`);
          return;
        }
        if (history.earlier.length === 0 && history.kept.length === 0) {
          out(`${node}: no maintenance recorded\n`);
          return;
        }
        for (const line of history.earlier) out(`${printable(line)}  (deleted)\n`);
        for (const request of history.kept) out(`${printable(summaryLine(request))}\n`);
      });
    });
}
