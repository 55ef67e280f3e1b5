/**
 * The JSON Schema of Claude Code's hooks format (`{hooks: {Event: [{matcher?, hooks: [handler]}]}}`)
 * and the validators the loader runs on each part: one matcher group at a time and one handler at
 * a time, so that a bad part is reported and skipped while the rest of the file still loads.
 * Unknown fields are not schema errors: Claude Code ignores them, and the loader warns instead.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { loadAjv } from '../../engine/index.js';
import { CLAUDE_EVENTS, CLAUDE_SDK_ONLY_EVENTS, HANDLER_TYPES } from './events.js';

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const strings = { type: 'array', items: { type: 'string' } } as const;

/** Fields every handler type has. */
const COMMON_FIELDS = {
  type: { enum: HANDLER_TYPES },
  if: str,
  timeout: { type: 'number', exclusiveMinimum: 0 },
  statusMessage: str,
  once: bool,
} as const;

const ON_FAILURE = { enum: ['continue', 'block'] } as const;

/** Per handler type: its own fields and the ones it requires. */
export const HANDLER_SCHEMAS = {
  command: {
    type: 'object',
    required: ['type', 'command'],
    properties: {
      ...COMMON_FIELDS,
      command: str,
      args: strings,
      shell: { enum: ['bash', 'powershell'] },
      async: bool,
      asyncRewake: bool,
      onFailure: ON_FAILURE,
    },
  },
  http: {
    type: 'object',
    required: ['type', 'url'],
    properties: {
      ...COMMON_FIELDS,
      url: str,
      headers: { type: 'object', additionalProperties: str },
      allowedEnvVars: strings,
      onFailure: ON_FAILURE,
    },
  },
  prompt: {
    type: 'object',
    required: ['type', 'prompt'],
    properties: { ...COMMON_FIELDS, prompt: str, model: str, continueOnBlock: bool },
  },
  agent: {
    type: 'object',
    required: ['type', 'prompt'],
    properties: { ...COMMON_FIELDS, prompt: str, model: str },
  },
  mcp_tool: {
    type: 'object',
    required: ['type', 'server', 'tool'],
    properties: { ...COMMON_FIELDS, server: str, tool: str, input: { type: 'object' }, onFailure: ON_FAILURE },
  },
} as const;

export type HandlerType = keyof typeof HANDLER_SCHEMAS;

/** Fields seen in Anthropic's own plugins but not documented; accepted quietly. */
export const UNDOCUMENTED_HANDLER_FIELDS: Readonly<Record<string, readonly string[]>> = {
  command: ['rewakeMessage', 'rewakeSummary'],
};

export function handlerFields(type: string): readonly string[] {
  const s = (HANDLER_SCHEMAS as Record<string, { properties: Record<string, unknown> }>)[type];
  return s ? Object.keys(s.properties) : Object.keys(COMMON_FIELDS);
}

/** A matcher group, without looking into its handlers (they are checked one by one). */
export const GROUP_SCHEMA = {
  type: 'object',
  required: ['hooks'],
  properties: { matcher: str, hooks: { type: 'array' } },
} as const;

export const GROUP_FIELDS: readonly string[] = Object.keys(GROUP_SCHEMA.properties);

const HANDLER_BASE_SCHEMA = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', enum: HANDLER_TYPES } },
} as const;

/** The whole format in one schema, for tools outside this loader (editors, the CLI). */
export const CLAUDE_HOOKS_SCHEMA = {
  $id: 'claude-hooks.json',
  title: 'Claude Code hooks',
  type: 'object',
  properties: {
    description: str,
    hooks: { $ref: '#/$defs/eventMap' },
    disableAllHooks: bool,
  },
  $defs: {
    eventMap: {
      type: 'object',
      propertyNames: { enum: [...CLAUDE_EVENTS, ...CLAUDE_SDK_ONLY_EVENTS] },
      additionalProperties: { type: 'array', items: { $ref: '#/$defs/group' } },
    },
    group: {
      type: 'object',
      required: ['hooks'],
      properties: { matcher: str, hooks: { type: 'array', items: { $ref: '#/$defs/handler' } } },
    },
    handler: {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: HANDLER_TYPES } },
      allOf: HANDLER_TYPES.map((t) => ({
        if: { type: 'object', required: ['type'], properties: { type: { const: t } } },
        then: { $ref: `#/$defs/${t}Handler` },
      })),
    },
    ...Object.fromEntries(Object.entries(HANDLER_SCHEMAS).map(([t, s]) => [`${t}Handler`, s])),
  },
} as const;

interface Validators {
  group: ValidateFunction;
  handlerBase: ValidateFunction;
  handler: Record<string, ValidateFunction>;
  whole: ValidateFunction;
}

let validators: Validators | undefined;

function compiled(): Validators {
  if (!validators) {
    const ajv = new (loadAjv())({ allErrors: true, strict: true, allowUnionTypes: true });
    validators = {
      group: ajv.compile(GROUP_SCHEMA),
      handlerBase: ajv.compile(HANDLER_BASE_SCHEMA),
      handler: Object.fromEntries(Object.entries(HANDLER_SCHEMAS).map(([t, s]) => [t, ajv.compile(s)])),
      whole: ajv.compile(CLAUDE_HOOKS_SCHEMA),
    };
  }
  return validators;
}

function run(v: ValidateFunction, value: unknown): ErrorObject[] {
  return v(value) ? [] : [...(v.errors ?? [])];
}

export function validateGroup(value: unknown): ErrorObject[] {
  return run(compiled().group, value);
}

export function validateHandlerBase(value: unknown): ErrorObject[] {
  return run(compiled().handlerBase, value);
}

export function validateHandler(type: string, value: unknown): ErrorObject[] {
  const v = compiled().handler[type];
  return v ? run(v, value) : [];
}

/** Validates a whole hooks document (`{hooks: ...}`) against the published schema. */
export function validateHooksDocument(value: unknown): ErrorObject[] {
  return run(compiled().whole, value);
}

/** `/args/0` -> `args[0]`, `/headers/X-Token` -> `headers.X-Token`. */
export function fieldName(instancePath: string): string {
  const segs = instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const s of segs) out += /^\d+$/.test(s) ? `[${s}]` : out ? `.${s}` : s;
  return out;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: '`true` or `false`',
  array: 'an array',
  object: 'an object',
};

/** One ajv error as a message in this project's style (lowercase, input in backticks). */
export function describeSchemaError(e: ErrorObject, value: unknown, what: string): string {
  const p = e.params as Record<string, unknown>;
  const field = fieldName(e.instancePath);
  const got = (): string => {
    let v: unknown = value;
    for (const s of e.instancePath.split('/').slice(1)) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[s.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    const j = JSON.stringify(v) ?? String(v);
    return j.length > 40 ? j.slice(0, 40) + '…' : j;
  };
  switch (e.keyword) {
    case 'required':
      return `${what} is missing \`${String(p['missingProperty'])}\``;
    case 'type':
      return `\`${field}\` must be ${TYPE_WORDS[String(p['type'])] ?? String(p['type'])}, found \`${got()}\``;
    case 'enum':
      return `\`${field}\` must be one of ${(p['allowedValues'] as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}, found \`${got()}\``;
    case 'exclusiveMinimum':
      return `\`${field}\` must be greater than ${String(p['limit'])}, found \`${got()}\``;
    default:
      return `\`${field || what}\` ${(e.message ?? 'is invalid').toLowerCase()}`;
  }
}
