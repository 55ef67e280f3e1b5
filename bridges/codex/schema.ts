/**
 * The shape Codex's config reader accepts for hooks, as a JSON Schema. Codex reads the whole
 * `hooks` value in one go: one value of the wrong type anywhere in a known event makes it reject
 * the whole file (hooks.json) or the whole `[hooks]` table (config.toml). Unknown keys are ignored,
 * so the schema allows them; the loader warns about them separately.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { loadAjv } from '../../engine/index.js';
import { CODEX_EVENTS } from './events.js';

/** Handler types Codex parses; only `command` runs. */
export const HANDLER_TYPES = ['command', 'prompt', 'agent'] as const;

/** Keys a `command` handler may carry, in any Codex release. */
export const COMMAND_KEYS: ReadonlySet<string> = new Set([
  'type',
  'command',
  'commandWindows',
  'command_windows',
  'timeout',
  'timeoutSec',
  'async',
  'statusMessage',
  'additionalContextLimit',
  'visibilityHint',
]);

export const GROUP_KEYS: ReadonlySet<string> = new Set(['matcher', 'hooks']);

const optionalString = { type: ['string', 'null'] };
const optionalCount = { type: ['integer', 'null'], minimum: 0 };

const HANDLER = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: [...HANDLER_TYPES] } },
  if: { required: ['type'], properties: { type: { const: 'command' } } },
  then: {
    required: ['command'],
    properties: {
      command: { type: 'string' },
      commandWindows: optionalString,
      command_windows: optionalString,
      timeout: optionalCount,
      async: { type: 'boolean' },
      statusMessage: optionalString,
      additionalContextLimit: optionalCount,
    },
  },
};

const GROUP = {
  type: 'object',
  properties: {
    matcher: optionalString,
    hooks: { type: 'array', items: HANDLER },
  },
};

export const CODEX_HOOKS_SCHEMA = {
  $id: 'https://dshpolicy.dev/schemas/codex-hooks.json',
  title: 'Codex hooks (hooks.json, or the `hooks` table of config.toml)',
  type: 'object',
  properties: {
    hooks: {
      type: 'object',
      properties: Object.fromEntries(CODEX_EVENTS.map((e) => [e.name, { type: 'array', items: GROUP }])),
    },
  },
};

let validator: ValidateFunction | undefined;

/** Validates `{hooks: ...}`; the errors of every problem found (none when it is fine). */
export function validateCodexHooks(value: unknown): ErrorObject[] {
  try {
    validator ??= new (loadAjv())({ allErrors: true, strict: false, allowUnionTypes: true }).compile(CODEX_HOOKS_SCHEMA);
    if (validator(value)) return [];
    return (validator.errors ?? []).filter((e) => e.keyword !== 'if');
  } catch {
    return [];
  }
}
