/**
 * The small history retention leaves behind (issue 32): one summary line per deleted request, kept
 * per node in the data of one ConfigMap (`kubemaint-history`). Bounded twice, so it never grows for
 * ever either: the newest `perNode` lines of each node, and the whole under `maxBytes` (a
 * ConfigMap holds at most 1 MiB), dropping the oldest lines of the longest nodes first. Pure.
 */

export interface HistoryLimits {
  perNode: number;
  maxBytes: number;
}

/** 200 lines a node (ten years of monthly reboots); 900 KB, under the ConfigMap's 1 MiB. */
export const HISTORY_LIMITS: HistoryLimits = { perNode: 200, maxBytes: 900_000 };

/** A node's lines as stored (newest last). */
export const historyLines = (text: string | undefined): string[] =>
  (text ?? '').split('\n').filter((line) => line !== '');

/** `data` with `lines` added to their nodes, within `limits`. */
export function addHistory(
  data: Readonly<Record<string, string>>,
  lines: readonly { node: string; line: string }[],
  limits: HistoryLimits = HISTORY_LIMITS,
): Record<string, string> {
  const byNode = new Map<string, string[]>();
  for (const [node, text] of Object.entries(data)) byNode.set(node, historyLines(text));
  for (const { node, line } of lines) byNode.set(node, [...(byNode.get(node) ?? []), line]);
  for (const [node, kept] of byNode) byNode.set(node, kept.slice(-limits.perNode));
  let size = [...byNode].reduce((sum, [node, kept]) => sum + bytesOf(node, kept), 0);
  while (size > limits.maxBytes) {
    const [node, kept] = [...byNode].reduce((a, b) => (b[1].length > a[1].length ? b : a));
    const dropped = kept.shift();
    if (dropped === undefined) break;
    size -= utf8Bytes(dropped) + 1;
    if (kept.length === 0) byNode.delete(node);
  }
  return Object.fromEntries([...byNode].map(([node, kept]) => [node, kept.join('\n')]));
}

const bytesOf = (node: string, lines: readonly string[]): number =>
  utf8Bytes(node) + lines.reduce((sum, line) => sum + utf8Bytes(line) + 1, 0);

const encoder = new TextEncoder();
const utf8Bytes = (text: string): number => encoder.encode(text).length;
