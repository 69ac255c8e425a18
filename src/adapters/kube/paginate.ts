/**
 * Paginated lists (`limit` + `continue`), as kubectl does with --chunk-size 500: large fleets and busy
 * nodes never come back in one giant response. A `continue` token that expired (410) restarts the
 * list once from the beginning, which is what the API asks clients to do.
 */
import { isKubeError } from './errors.js';
import { withRetry, type RetryPolicy } from './retry.js';

export const PAGE_SIZE = 500;

export interface Page<T> {
  items: T[];
  metadata?: { _continue?: string };
}

/**
 * A CustomObjectsApi (or raw) list answer as a page. Its JSON keeps the token as `continue`; only the
 * typed clients rename it `_continue`, and KubernetesObjectApi.list drops a custom list's metadata
 * altogether. Read as `_continue`, every such list stopped after its first 500 objects.
 */
export function customObjectsPage<T>(list: unknown): Page<T> {
  const answer = list as { items?: T[]; metadata?: { continue?: string } };
  return { items: answer.items ?? [], metadata: { _continue: answer.metadata?.continue ?? '' } };
}

export async function listAll<T>(
  action: string,
  fetchPage: (cont: string | undefined, limit: number) => Promise<Page<T>>,
  retry: RetryPolicy,
  limit = PAGE_SIZE,
): Promise<T[]> {
  for (let restart = 0; ; restart++) {
    const items: T[] = [];
    let cont: string | undefined;
    try {
      do {
        const token = cont;
        const page = await withRetry(action, () => fetchPage(token, limit), retry);
        items.push(...page.items);
        cont = page.metadata?._continue || undefined;
      } while (cont);
      return items;
    } catch (error) {
      if (restart === 0 && isKubeError(error, 'expired')) continue;
      throw error;
    }
  }
}
