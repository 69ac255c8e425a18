/**
 * Managed fields and server-side apply (managers.ts), merged and tracked by each kind's schema
 * (kind-schema.ts).
 */
export {
  applyConfig,
  updateManagedFields,
  type FieldWrite,
  type ManagedFieldsEntry,
} from './managers.js';
export { kindType } from './kind-schema.js';
