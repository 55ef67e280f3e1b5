/**
 * Command-line parsing shared by the subcommands: node's parseArgs with strict checking, turned
 * into usage errors instead of exceptions.
 */
import { alternatives } from '../engine/index.js';

export { alternatives };

export class UsageError extends Error {}

export type Format = 'human' | 'json' | 'table';

/** Runs node's parseArgs, turning its complaints into usage errors. */
export function guard<T>(parseFn: () => T): T {
  try {
    return parseFn();
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new UsageError(msg.replace(/\.$/, '').replace(/^./, (c) => c.toLowerCase()));
  }
}

export function format(value: unknown, allowed: readonly Format[], fallback: Format): Format {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as Format;
  throw new UsageError(`unknown format \`${String(value)}\`; use ${alternatives(allowed.map((f) => `\`${f}\``))}`);
}

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
}


/**
 * The policy a command evaluates: `--policy` files and hooks configurations (`--claude-hooks`,
 * `--codex-hooks`); naming none of them is a usage error.
 */
export function policyInputs(values: { policy?: string[]; 'claude-hooks'?: string[]; 'codex-hooks'?: string[] }): {
  policies: string[];
  hooks: { claude: string[]; codex: string[] };
} {
  const policies = values.policy ?? [];
  const hooks = { claude: values['claude-hooks'] ?? [], codex: values['codex-hooks'] ?? [] };
  if (policies.length === 0 && hooks.claude.length === 0 && hooks.codex.length === 0) {
    throw new UsageError('name the policy with `--policy <file>` (or hooks with `--claude-hooks` / `--codex-hooks`)');
  }
  return { policies, hooks };
}

/** The options that make warnings fail a CI run: `--strict` and `--max-warnings <n>`. */
export const WARNING_OPTIONS = {
  strict: { type: 'boolean' },
  'max-warnings': { type: 'string' },
} as const;

/** The most warnings a run may have, from `--strict` (none) and `--max-warnings <n>`; undefined: any number. */
export function warningLimit(values: { strict?: boolean | undefined; 'max-warnings'?: string | undefined }): number | undefined {
  const text = values['max-warnings'];
  let max: number | undefined;
  if (text !== undefined) {
    if (!/^\d+$/.test(text)) throw new UsageError(`\`--max-warnings\` takes a whole number of at least 0, found \`${text}\``);
    max = Number(text);
  }
  return values.strict === true ? 0 : max;
}

/** Why the warnings fail the run, or undefined when they do not (`limit` from warningLimit). */
export function tooManyWarnings(warnings: number, limit: number | undefined, strict: boolean): string | undefined {
  if (limit === undefined || warnings <= limit) return undefined;
  const n = `${warnings} warning${warnings === 1 ? '' : 's'}`;
  return strict ? `${n}, and --strict fails on any` : `${n}, more than --max-warnings ${limit}`;
}
