/**
 * The storage-version migration `serve` runs (ADR 0051): at each skew scan, only where the tick
 * runs (the leader), for each of kubemaint's kinds whose CRD still lists a version other than the
 * one kubemaint stores in `status.storedVersions`, every object is rewritten at today's storage
 * version and the list is then trimmed. Idempotent: once trimmed, a scan reads two CRDs and
 * nothing else. A failure is reported, not thrown: maintenance goes on, the next scan tries again
 * (the objects rewritten so far stay rewritten).
 */
import { storagePlan, type StoredKind } from '../../core/storage-version.js';

export interface StorageVersionPort {
  /** kubemaint's kinds (plurals), and the version it reads, writes and wants stored. */
  kinds: readonly string[];
  version: string;
  /** The kind's CRD: its storage version and `status.storedVersions`. */
  read(plural: string): Promise<StoredKind>;
  /** Every object of the kind written again, unchanged (paginated); how many were listed and written. */
  rewrite(plural: string): Promise<{ listed: number; rewritten: number }>;
  /** `status.storedVersions` set to `versions`, through the CRD's status subresource. */
  trim(plural: string, versions: string[]): Promise<void>;
}

export async function migrateStorage(port: StorageVersionPort | undefined): Promise<string[]> {
  if (!port) return [];
  const said: string[] = [];
  for (const plural of port.kinds) {
    try {
      const plan = storagePlan(await port.read(plural), port.version);
      if (plan.kind === 'done') continue;
      if (plan.kind === 'wait') {
        said.push(`${plural}: ${plan.why}`);
        continue;
      }
      const { listed, rewritten } = await port.rewrite(plural);
      await port.trim(plural, [plan.to]);
      said.push(
        `${plural}: ${rewritten} of ${listed} rewritten as ${plan.to} ` +
          `(${listed - rewritten} written meanwhile or gone); storedVersions ` +
          `[${[...plan.from, plan.to].join(', ')}] → [${plan.to}]`,
      );
    } catch (error) {
      said.push(
        `${plural}: storage migration failed, next skew scan retries: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return said;
}
