/** Not importable yet: every file is reported as unsupported. */
import { diagnostic } from '../../engine/index.js';
import type { ImportedPolicy, PermissionImportOptions } from '../permissions.js';

export function importClaudePermissions(_text: string, file: string, _opts: PermissionImportOptions = {}): ImportedPolicy {
  return { rules: [], tests: [], diagnostics: [diagnostic('import/unsupported', 'error', `cannot import \`${file}\`: not supported by this version`)], comments: new Map() };
}
